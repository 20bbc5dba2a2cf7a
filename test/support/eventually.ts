import { setTimeout as sleep } from 'node:timers/promises'

export interface EventuallyOptions {
  /**
   * How long to keep trying before failing with the last error, in ms. Generous by default: on a busy
   * machine opening an embedded database alone can take much of it, and a passing check returns at once.
   */
  timeout?: number
  /** Pause between attempts, in ms. */
  interval?: number
}

/**
 * The pace of a wait that polls the API: each poll counts against its rate limit (RATE_LIMIT_MAX a
 * minute), which the default pace would spend in a quarter of a minute, leaving the wait 429s only.
 */
export const API_POLL: EventuallyOptions = { interval: 250 }

/**
 * Retries `check` until it returns without throwing (its value is returned) or `timeout` runs out
 * (its last error is thrown). Tests wait for an event with this, never with a fixed sleep.
 */
export async function eventually<T> (check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeout = options.timeout ?? 30_000
  const interval = options.interval ?? 25
  const deadline = Date.now() + timeout
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() >= deadline) throw error
    }
    await sleep(interval)
  }
}
