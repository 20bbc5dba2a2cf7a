// One delivery attempt: a signed POST, within a deadline, to a public address unless allowed
// otherwise, and never following a redirect (a receiver that moved says so by a new registration).
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { AttemptError } from '../domain/webhook-attempt.js'
import { publicOnlyLookup, resolvePublicAddresses, targetHost } from './target-lookup.js'

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
}

// What a receiver's answer may hold that is read (and thrown away): enough for any acknowledgement.
const MAX_ANSWER_BYTES = 64 * 1024

function outcomeOf (statusCode: number): Pick<AttemptOutcome, 'ok' | 'statusCode' | 'error'> {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode }
  return { ok: false, statusCode, error: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'status' }
}

function post (url: URL, options: RequestOptions, body: string): Promise<number> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, options, response => {
      let received = 0
      response.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > MAX_ANSWER_BYTES) response.destroy()
      })
      response.on('error', () => resolve(response.statusCode ?? 0))
      response.on('close', () => resolve(response.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}

export async function sendDelivery (delivery: DeliveryRequest): Promise<AttemptOutcome> {
  const url = new URL(delivery.url)
  const started = performance.now()
  const elapsed = (): number => Math.round(performance.now() - started)
  try {
    // node:http connects to an IP literal without a lookup: that one is checked here, names in the lookup.
    const host = targetHost(url)
    if (!delivery.allowPrivateTargets && isIP(host) !== 0) await resolvePublicAddresses(host)
    const statusCode = await post(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'recrutamento-api-webhooks', ...delivery.headers },
      signal: AbortSignal.timeout(delivery.timeoutMs),
      ...(!delivery.allowPrivateTargets && { lookup: publicOnlyLookup })
    }, delivery.body)
    return { ...outcomeOf(statusCode), durationMs: elapsed() }
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
