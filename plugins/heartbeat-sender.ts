import fp from 'fastify-plugin'
import { hostname } from 'node:os'
import type { FastifyInstance } from 'fastify'
import { logCause } from '../src/logging/redacted-cause.ts'

const SERVICE_NAME = 'recrutamento-api'

/**
 * With HEARTBEAT_URL set, this instance pushes its own heartbeat there every HEARTBEAT_INTERVAL_MS
 * (docs/operations.md, "Health and status"), with HEARTBEAT_TOKEN as bearer token when given. It stops when shutdown begins.
 */
async function heartbeatSender (fastify: FastifyInstance): Promise<void> {
  const { HEARTBEAT_URL: url, HEARTBEAT_TOKEN: token, HEARTBEAT_INTERVAL_MS: interval } = fastify.config
  if (url === undefined) return
  const log = fastify.log.child({ component: 'heartbeat-sender' })
  const instanceId = `${hostname()}:${process.pid}`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  let timer: NodeJS.Timeout | undefined
  let failing = false
  let stopped = false

  async function beat (): Promise<void> {
    const body = JSON.stringify({ service: SERVICE_NAME, instanceId, status: 'alive', timestamp: new Date().toISOString(), intervalMs: interval })
    try {
      const res = await fetch(url as string, { method: 'POST', headers, body, signal: AbortSignal.timeout(Math.min(interval, 5000)) })
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`answered ${res.status}`)
      if (failing) log.info('heartbeats are accepted again')
      failing = false
    } catch (error) {
      // One line when beats start failing, not one per beat.
      if (!failing) log.warn(logCause(error), 'heartbeat not delivered')
      failing = true
    }
  }

  function schedule (): void {
    if (stopped) return
    timer = setTimeout(() => { beat().finally(schedule).catch(() => {}) }, interval)
    timer.unref()
  }

  fastify.addHook('onReady', async () => {
    beat().finally(schedule).catch(() => {})
  })
  fastify.addHook('preClose', async () => {
    stopped = true
    clearTimeout(timer)
  })
}

export default fp(heartbeatSender, { name: 'heartbeat-sender', fastify: '5.x', dependencies: ['config'] })
