export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  current: number
  /** Milliseconds until the window ends. */
  ttl: number
}

interface Entry { count: number, endsAt: number }

/**
 * Fixed-window counters in this process: the fallback when Redis is unset or unreachable.
 * At most `capacity` callers are tracked; the one seen least recently is forgotten first.
 */
export class LocalCounters {
  readonly #entries = new Map<string, Entry>()
  readonly #capacity: number

  constructor (capacity = 10_000) {
    this.#capacity = capacity
  }

  increment (key: string, windowMs: number, now = Date.now()): WindowCount {
    let entry = this.#entries.get(key)
    if (entry === undefined || entry.endsAt <= now) {
      entry = { count: 0, endsAt: now + windowMs }
    }
    entry.count += 1
    // Re-inserting keeps the map in order of last use, so the first key is the one to evict.
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
    return { current: entry.count, ttl: entry.endsAt - now }
  }
}
