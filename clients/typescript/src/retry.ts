// Retries that cannot do a thing twice: a request is resent only when resending is safe, after an
// exponential backoff with jitter that waits at least what Retry-After says, within a number of
// attempts and a deadline; each attempt has a timeout of its own.
import { ApiRequestError } from './errors.ts'

export interface RetryOptions {
  /** Retries after the first attempt; `0` sends each request once. Default 3. */
  maxRetries?: number | undefined
  /** The whole call, every attempt and wait included, in ms. Default 60000. */
  deadlineMs?: number | undefined
  /** One attempt, until its answer's head arrives, in ms. Default 30000. */
  attemptTimeoutMs?: number | undefined
  /** The backoff before the first retry, in ms, doubled for each next one. Default 500. */
  backoffMs?: number | undefined
  /** The longest backoff, in ms (Retry-After may ask for longer). Default 20000. */
  maxBackoffMs?: number | undefined
}

export const RETRY_DEFAULTS = { maxRetries: 3, deadlineMs: 60_000, attemptTimeoutMs: 30_000, backoffMs: 500, maxBackoffMs: 20_000 }

/**
 * What may be resent: `any-failure` (a read, a PUT, a DELETE of a resource, a create under an
 * Idempotency-Key) after a lost connection, a timeout, 429, 502, 503 or 504; `nothing-done` (an
 * action, a PATCH) only after 429 or 503, which the service answers only when it did nothing.
 */
export type Resendable = 'any-failure' | 'nothing-done'

const RETRIED: Record<Resendable, readonly number[]> = { 'any-failure': [429, 502, 503, 504], 'nothing-done': [429, 503] }

/** How a call went, beside its answer: `callInfo(response)`. */
export interface CallInfo {
  /** Attempts the call took: 1 when it was not retried. */
  attempts: number
  /** The answer's `x-request-id`: the service's log line of it. */
  requestId: string | null
  /** Whether the final answer was one the client retries for this request: sending it again later is safe and may succeed. */
  retryable: boolean
}

const resendable = new WeakMap<Request, Resendable>()
const calls = new WeakMap<Response, CallInfo>()

/** Marks what may be resent of a request, for the retrying fetch that sends it. */
export function markResendable (request: Request, how: Resendable): void {
  resendable.set(request, how)
}

export function callInfo (response: Response): CallInfo {
  return calls.get(response) ?? { attempts: 1, requestId: response.headers.get('x-request-id'), retryable: false }
}

type Fetch = (request: Request) => Promise<Response>

/** `fetch`, with the retries the options allow. An unmarked request other than a read or a PUT is resent only when nothing was done. */
export function retryingFetch (send: Fetch, options: RetryOptions): Fetch {
  const settings = { ...RETRY_DEFAULTS }
  for (const [name, value] of Object.entries(options)) if (value !== undefined && name in settings) settings[name as keyof RetryOptions] = value
  return async request => {
    const how = resendable.get(request) ?? (['GET', 'HEAD', 'OPTIONS', 'PUT'].includes(request.method) ? 'any-failure' : 'nothing-done')
    const body = request.body === null ? undefined : await request.arrayBuffer()
    const deadline = Date.now() + settings.deadlineMs
    for (let attempt = 1; ; attempt++) {
      const timer = new AbortController()
      const timeout = setTimeout(() => timer.abort(new Error('attempt timed out')), Math.max(0, Math.min(settings.attemptTimeoutMs, deadline - Date.now())))
      let response: Response | undefined
      let failure: unknown
      try {
        const signal = AbortSignal.any([request.signal, timer.signal])
        response = await send(new Request(request.url, { method: request.method, headers: request.headers, body: body ?? null, redirect: request.redirect, signal }))
      } catch (error) {
        failure = error
      } finally {
        clearTimeout(timeout)
      }
      if (request.signal.aborted) throw request.signal.reason
      const retryable = response === undefined ? how === 'any-failure' : RETRIED[how].includes(response.status)
      // Retry-After, plus the jittered backoff: clients told the same time do not all come back at once.
      const wait = backoff(attempt, settings) + retryAfterMs(response)
      if (!retryable || attempt > settings.maxRetries || Date.now() + wait >= deadline) {
        if (response === undefined) throw new ApiRequestError(`${request.method} ${request.url}: no answer after ${attempt} attempt(s)`, attempt, retryable, failure)
        calls.set(response, { attempts: attempt, requestId: response.headers.get('x-request-id'), retryable })
        return response
      }
      await response?.body?.cancel()
      await sleep(wait, request.signal)
    }
  }
}

/** Exponential, with jitter: half the doubled delay, plus up to as much again at random. */
function backoff (attempt: number, settings: typeof RETRY_DEFAULTS): number {
  const ceiling = Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** (attempt - 1))
  return ceiling / 2 + Math.random() * ceiling / 2
}

/** Retry-After in seconds or as an HTTP date, in ms; 0 when absent. */
export function retryAfterMs (response: Response | undefined): number {
  const value = response?.headers.get('retry-after')?.trim()
  if (value === undefined || value === '') return 0
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? 0 : Math.max(0, at - Date.now())
}

async function sleep (ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  await new Promise<void>((resolve, reject) => {
    const stop = () => { clearTimeout(timer); reject(signal.reason) }
    const timer = setTimeout(() => { signal.removeEventListener('abort', stop); resolve() }, ms)
    signal.addEventListener('abort', stop, { once: true })
  })
}
