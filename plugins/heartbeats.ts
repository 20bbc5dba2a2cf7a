import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { logCause } from '../src/logging/redacted-cause.ts'
import { assess, instanceDetails, instanceKey, isHeartbeat, type Heartbeat } from '../src/health/heartbeats.ts'
import type { CheckDetails } from '../src/health/registry.ts'
import { worstOf } from '../src/health/status.ts'

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
// The same instances by the time of their newest heartbeat: the longest silent are found first.
const REDIS_RECENCY_KEY = 'heartbeats:received'
// An instance silent this long is forgotten: it was scaled away, not lost.
const FORGET_AFTER_MS = 60 * 60 * 1000

// Records a heartbeat and, in the same step, drops the instances silent for FORGET_AFTER_MS and,
// past the bound, the longest silent (lowest score first). KEYS: the hash, the recency set.
// ARGV: instance key, heartbeat JSON, received at, forget before, most instances kept.
const RECORD_SCRIPT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local drop = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4], 'LIMIT', 0, 100)
local over = redis.call('ZCARD', KEYS[2]) - #drop - tonumber(ARGV[5])
if over > 0 then
  for _, key in ipairs(redis.call('ZRANGE', KEYS[2], #drop, #drop + math.min(over, 100) - 1)) do table.insert(drop, key) end
end
if #drop > 0 then
  redis.call('ZREM', KEYS[2], unpack(drop))
  redis.call('HDEL', KEYS[1], unpack(drop))
end
return #drop
`

interface ScriptedRedis { recordHeartbeat: (hash: string, recency: string, key: string, json: string, receivedAt: number, forgetBefore: number, max: number) => Promise<number> }

/**
 * Known worker instances and the `workers` dependency. With Redis every instance of the service sees
 * every heartbeat; when Redis is down (or unset) the heartbeats this instance received are used.
 * The client's command timeout bounds every Redis call, and while Redis is down calls fail at once.
 */
async function heartbeatsPlugin (fastify: FastifyInstance): Promise<void> {
  const { redis, config } = fastify
  const log = fastify.log.child({ component: 'heartbeats' })
  const max = config.HEARTBEAT_MAX_INSTANCES
  // In the order of their newest heartbeat (each is deleted and set again): the first is the longest silent.
  const local = new Map<string, Heartbeat>()

  function keepLocally (key: string, heartbeat: Heartbeat): void {
    local.delete(key)
    local.set(key, heartbeat)
    for (const [oldest, { receivedAt }] of local) {
      if (local.size <= max && heartbeat.receivedAt - receivedAt <= FORGET_AFTER_MS) break
      local.delete(oldest)
    }
  }

  if (redis !== null && !('recordHeartbeat' in redis)) redis.defineCommand('recordHeartbeat', { numberOfKeys: 2, lua: RECORD_SCRIPT })

  const heartbeats: Heartbeats = {
    async record (heartbeat) {
      const key = instanceKey(heartbeat)
      keepLocally(key, heartbeat)
      if (redis === null) return
      try {
        await (redis as unknown as ScriptedRedis).recordHeartbeat(REDIS_KEY, REDIS_RECENCY_KEY, key, JSON.stringify(heartbeat), heartbeat.receivedAt, heartbeat.receivedAt - FORGET_AFTER_MS, max)
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
    return { status: worstOf(states.map(state => state.status)), details: instanceDetails(states) as CheckDetails }
  }, { tags: ['deep'], critical: false })
}

export default fp(heartbeatsPlugin, { name: 'heartbeats', fastify: '5.x', dependencies: ['config', 'health', 'redis'] })
