import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { logCause } from '../src/health/log-cause.js'
import { assess, instanceKey, isHeartbeat, type Heartbeat } from '../src/health/heartbeats.js'
import type { CheckDetails } from '../src/health/registry.js'
import { worstOf } from '../src/health/status.js'

export interface Heartbeats {
  /** Stores a heartbeat where every instance of the service sees it (Redis), or locally without Redis. */
  record: (heartbeat: Heartbeat) => Promise<void>
  /** Every known instance's newest heartbeat. */
  list: () => Promise<Heartbeat[]>
}

declare module 'fastify' {
  interface FastifyInstance {
    heartbeats: Heartbeats
  }
}

const REDIS_KEY = 'heartbeats'
// An instance silent this long is forgotten: it was scaled away, not lost.
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000

/**
 * Known worker instances and the `workers` dependency. With Redis every instance of the service sees
 * every heartbeat; when Redis is down (or unset) the heartbeats this instance received are used.
 * The client's command timeout bounds every Redis call, and while Redis is down calls fail at once.
 */
async function heartbeatsPlugin (fastify: FastifyInstance): Promise<void> {
  const { redis, config } = fastify
  const log = fastify.log.child({ component: 'heartbeats' })
  const local = new Map<string, Heartbeat>()

  function forgetOld (now: number): void {
    for (const [key, heartbeat] of local) if (now - heartbeat.receivedAt > FORGET_AFTER_MS) local.delete(key)
  }

  const heartbeats: Heartbeats = {
    async record (heartbeat) {
      local.set(instanceKey(heartbeat), heartbeat)
      forgetOld(Date.now())
      if (redis === null) return
      try {
        await redis.hset(REDIS_KEY, instanceKey(heartbeat), JSON.stringify(heartbeat))
      } catch (error) {
        log.warn(logCause(error), 'heartbeat kept locally: redis is unavailable')
      }
    },
    async list () {
      if (redis === null) return [...local.values()]
      try {
        const stored = await redis.hgetall(REDIS_KEY)
        const now = Date.now()
        const shared: Heartbeat[] = []
        for (const [key, text] of Object.entries(stored)) {
          let parsed: unknown
          try { parsed = JSON.parse(text) } catch { parsed = undefined }
          if (isHeartbeat(parsed) && now - parsed.receivedAt <= FORGET_AFTER_MS) shared.push(parsed)
          else redis.hdel(REDIS_KEY, key).catch(() => {})
        }
        return shared
      } catch (error) {
        log.warn(logCause(error), 'heartbeats read locally: redis is unavailable')
        return [...local.values()]
      }
    }
  }
  fastify.decorate('heartbeats', heartbeats)

  // Workers are a dependency to watch, not a reason to take the API out of rotation: deep only.
  fastify.health.register('workers', async () => {
    const states = assess(await heartbeats.list(), config.HEARTBEAT_TOLERANCE, Date.now())
    const details: CheckDetails = { instances: states.length }
    for (const state of states) details[state.key] = state.status
    return { status: worstOf(states.map(state => state.status)), details }
  }, { tags: ['deep'], critical: false })
}

export default fp(heartbeatsPlugin, { name: 'heartbeats', fastify: '5.x', dependencies: ['config', 'health', 'redis'] })
