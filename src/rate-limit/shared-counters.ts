import type { Redis } from 'ioredis'
import { LocalCounters, type WindowCount } from './local-counters.js'

// One round trip: count, start the window on the first hit, report what is left of it.
const INCREMENT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { current, ttl }
`

interface ScriptedRedis {
  rateLimitIncrement: (key: string, windowMs: number) => Promise<[number, number]>
}

export interface SharedCountersOptions {
  /** The shared client, or null to count in this process only. */
  redis: Redis | null
  /** Key namespace inside the client's own prefix. */
  namespace: string
  /** After a failure, how long to count locally before asking Redis again. */
  retryAfterMs?: number
  /** Told once when counting falls back to local state (Redis down or slow), until Redis answers again. */
  onFallback?: (reason: string) => void
  /** Told once when Redis answers again after a fallback. */
  onRestored?: () => void
}

/**
 * Fixed-window counters shared by every instance through Redis. A request never waits for a Redis
 * that is down or slow (the client's command timeout bounds the wait), and never fails because of it:
 * it is counted in this process instead.
 */
export class SharedCounters {
  readonly #options: SharedCountersOptions
  readonly #local = new LocalCounters()
  #degraded = false
  #retryAt = 0

  constructor (options: SharedCountersOptions) {
    this.#options = options
    const redis = options.redis
    if (redis !== null && !('rateLimitIncrement' in redis)) {
      redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT })
    }
  }

  async increment (key: string, windowMs: number): Promise<WindowCount> {
    const { redis, namespace } = this.#options
    if (redis === null) return this.#local.increment(key, windowMs)
    // While Redis is failing, ask it again only now and then: a hung Redis must not tax every request.
    if (this.#degraded && Date.now() < this.#retryAt) return this.#local.increment(key, windowMs)
    if (redis.status !== 'ready') return this.#fallback(key, windowMs, 'redis not connected')
    try {
      const [current, ttl] = await (redis as unknown as ScriptedRedis).rateLimitIncrement(namespace + key, windowMs)
      if (this.#degraded) {
        this.#degraded = false
        this.#options.onRestored?.()
      }
      return { current, ttl }
    } catch (error) {
      return this.#fallback(key, windowMs, error instanceof Error ? error.message : 'redis error')
    }
  }

  #fallback (key: string, windowMs: number, reason: string): WindowCount {
    this.#retryAt = Date.now() + (this.#options.retryAfterMs ?? 1_000)
    if (!this.#degraded) {
      this.#degraded = true
      this.#options.onFallback?.(reason)
    }
    return this.#local.increment(key, windowMs)
  }
}
