// A receiver's Retry-After (RFC 9110 10.2.3): delay-seconds, or an HTTP-date. Heard on the answers
// that mean "not now" (429, 503); anything else, or a value that is neither form, is no answer.
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503])

/** Whole seconds from `now` the receiver asks to wait, or undefined when it asks for nothing. */
export function retryAfterSeconds (statusCode: number, value: string | string[] | undefined, now = Date.now()): number | undefined {
  if (!WAIT_STATUSES.has(statusCode) || typeof value !== 'string') return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const at = Date.parse(text)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - now) / 1000))
}
