// One delivery attempt: a signed POST, within a deadline, to a public address unless allowed
// otherwise, and never following a redirect (a receiver that moved says so by a new registration).
import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'
import type { AttemptError } from '../domain/webhook-attempt.ts'
import { retryAfterSeconds } from './retry-after.ts'
import { publicOnlyLookup, resolvePublicAddresses, targetHost } from './target-lookup.ts'

export interface DeliveryRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback and private addresses are allowed. */
  allowPrivateTargets: boolean
}

export interface AttemptOutcome {
  ok: boolean
  durationMs: number
  /** The receiver's status code, when it answered. */
  statusCode?: number
  error?: AttemptError
  /** A 429 or 503 with Retry-After: the seconds the receiver asks to wait before the next attempt. */
  retryAfterSeconds?: number
}

// What a receiver's answer may hold that is read (and thrown away): enough for any acknowledgement.
const MAX_ANSWER_BYTES = 64 * 1024

function outcomeOf (statusCode: number): Pick<AttemptOutcome, 'ok' | 'statusCode' | 'error'> {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode }
  return { ok: false, statusCode, error: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'status' }
}

// undici rather than node:http: a keep-alive pool per receiver, at a fraction of node:http's cost per
// request, which is most of what a delivery costs the service. It follows no redirect unless told to.
const agents = {
  // Names are resolved on every connection, and only public addresses answered (DNS rebinding).
  publicOnly: new Agent({ connect: { lookup: publicOnlyLookup } }),
  any: new Agent()
}

export async function sendDelivery (delivery: DeliveryRequest): Promise<AttemptOutcome> {
  const url = new URL(delivery.url)
  const started = performance.now()
  const elapsed = (): number => Math.round(performance.now() - started)
  try {
    // A connection to an IP literal makes no lookup: that one is checked here, names in the lookup.
    const host = targetHost(url)
    if (!delivery.allowPrivateTargets && isIP(host) !== 0) await resolvePublicAddresses(host)
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'recrutamento-api-webhooks', ...delivery.headers },
      body: delivery.body,
      signal: AbortSignal.timeout(delivery.timeoutMs),
      dispatcher: delivery.allowPrivateTargets ? agents.any : agents.publicOnly
    })
    // Read to its end, so the connection serves the next delivery, unless it goes on too long.
    await response.body.dump({ limit: MAX_ANSWER_BYTES })
    const { statusCode } = response
    const wait = retryAfterSeconds(statusCode, response.headers['retry-after'])
    return { ...outcomeOf(statusCode), durationMs: elapsed(), ...(wait !== undefined && { retryAfterSeconds: wait }) }
  } catch (error) {
    return { ok: false, durationMs: elapsed(), error: errorOf(error) }
  }
}

function errorOf (error: unknown): AttemptError {
  const { name, code } = error as { name?: string, code?: string }
  if (name === 'TargetRefusedError' || code === 'ETARGETREFUSED') return 'refused-target'
  if (name === 'AbortError' || name === 'TimeoutError') return 'timeout'
  return 'connection'
}
