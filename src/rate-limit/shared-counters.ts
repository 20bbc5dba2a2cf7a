import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { Redis } from 'ioredis'
import { LocalCounters, type WindowCount } from './local-counters.ts'

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
  /** The shared client. */
  redis: Redis
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
 * it is counted in this process instead. @fastify/rate-limit's own Redis store cannot do this: it
 * fails the request or, with `skipOnError`, lets it through uncounted, and asks a failing Redis on
 * every request.
 */
export class SharedCounters {
  readonly #options: SharedCountersOptions
  readonly #local = new LocalCounters()
  #degraded = false
  #retryAt = 0

  constructor (options: SharedCountersOptions) {
    this.#options = options
    if (!('rateLimitIncrement' in options.redis)) {
      options.redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT })
    }
  }

  async increment (key: string, windowMs: number): Promise<WindowCount> {
    const { redis, namespace } = this.#options
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

/** The counters as @fastify/rate-limit's `store`. */
export function rateLimitStore (counters: SharedCounters): FastifyRateLimitStoreCtor {
  return class CounterStore implements FastifyRateLimitStore {
    incr (key: string, callback: (error: Error | null, result?: WindowCount) => void, timeWindow?: number): void {
      counters.increment(key, timeWindow ?? 0).then(result => callback(null, result), callback)
    }

    child (): FastifyRateLimitStore {
      // The plugin asks for a child only for a route with limits of its own, which plugins/rate-limit.ts refuses at start.
      throw new Error('a route\'s own rate limit settings are not supported')
    }
  }
}
