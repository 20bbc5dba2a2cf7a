import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { eventually } from './eventually.ts'

/** Waits until the app's readiness answers `status` (injected, no listener); that answer. */
export async function untilReadiness (app: FastifyInstance, status = 200): Promise<LightMyRequestResponse> {
  return await eventually(async () => {
    const res = await app.inject('/health/ready')
    assert.equal(res.statusCode, status, `readiness answers ${res.statusCode}, waiting for ${status}: ${res.body}`)
    return res
  }, { timeout: 30_000, interval: 50 })
}
