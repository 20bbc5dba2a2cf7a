// A delivery checked in one call, as Standard Webhooks signs it (docs/api.md, "Signatures"): the
// HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the subscription's secret,
// compared by WebCrypto's verify (constant time), within a tolerance of the receiver's clock.
import type { V2Paths } from './generated/versions.ts'
import type { ItemOf } from './paging.ts'

/** An event as the feed shows it. */
export type Evento = ItemOf<V2Paths, '/api/v2/eventos'>

/** A delivery's body. */
export interface WebhookEvent {
  type: Evento['tipo']
  /** When the change was made. */
  timestamp: string
  data: Evento
}

export const WEBHOOK_TOLERANCE_SECONDS = 300

export interface VerifyOptions {
  /** How far the delivery's timestamp may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number | undefined
  /** Now, for the timestamp check; the clock by default. */
  now?: Date | undefined
}

/** Why a delivery was refused: answer it 400 (or 401), never 2xx. */
export class WebhookVerificationError extends Error {
  readonly reason: 'missing-header' | 'old-timestamp' | 'future-timestamp' | 'bad-signature'

  constructor (reason: 'missing-header' | 'old-timestamp' | 'future-timestamp' | 'bad-signature', message: string) {
    super(message)
    this.reason = reason
    this.name = 'WebhookVerificationError'
  }
}

/** The request's headers: a fetch `Headers`, or Node.js's `IncomingHttpHeaders`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

function header (headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name]
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || text === null || text === '') throw new WebhookVerificationError('missing-header', `the ${name} header is missing`)
  return text
}

function bytes (base64: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(base64), char => char.charCodeAt(0))
}

/**
 * The event of a delivery, once its signature verifies with `secret` (`whsec_...`) over the raw
 * `body` exactly as received; throws WebhookVerificationError otherwise, and for a timestamp further
 * than the tolerance from now, so a captured delivery cannot be replayed later.
 */
export async function verifyWebhook (secret: string, body: string, headers: WebhookHeaders, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  const skew = Number(timestamp) - (options.now ?? new Date()).getTime() / 1000
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS
  if (!/^\d+$/.test(timestamp) || skew < -tolerance) throw new WebhookVerificationError('old-timestamp', 'the delivery is too old, or its timestamp is not one')
  if (skew > tolerance) throw new WebhookVerificationError('future-timestamp', 'the delivery\'s timestamp is too far ahead')
  let key
  try {
    key = await crypto.subtle.importKey('raw', bytes(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
  } catch {
    throw new TypeError('the secret is not a whsec_ base64 secret')
  }
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`)
  // Standard Webhooks allows several signatures, space-separated: any one verifying is enough.
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',')
    if (version !== 'v1' || signature === undefined) continue
    let given
    try { given = bytes(signature) } catch { continue }
    if (await crypto.subtle.verify('HMAC', key, given, signed)) return JSON.parse(body) as WebhookEvent
  }
  throw new WebhookVerificationError('bad-signature', 'no signature of the delivery verifies with this secret')
}
