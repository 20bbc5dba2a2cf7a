import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createMemoryDenyList, type DenyList } from '../src/auth/deny-list.ts'
import { ReplicatedDenyList } from '../src/auth/replicated-deny-list.ts'
import { logCause } from '../src/logging/redacted-cause.ts'
import { tightenOnceServing } from '../src/redis/boot-timeouts.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Revoked token ids: shared through Redis when REDIS_URL is set, else in this process. */
    tokenDenyList: DenyList
    /** The local replica behind `tokenDenyList` when REDIS_URL is set, for the health report. */
    revocationReplica: ReplicatedDenyList | null
  }
}

const FIRST_LOAD_RETRY_MS = 1_000

/**
 * The token deny list. With Redis each instance holds a replica, so a token check never makes a
 * round trip: loaded at start, kept current through pub/sub on a connection of its own, and reloaded
 * every REVOCATION_RESYNC_INTERVAL_MS in case a message was lost.
 */
async function denyList (fastify: FastifyInstance): Promise<void> {
  const { redis, config } = fastify
  if (redis === null) {
    fastify.decorate('tokenDenyList', createMemoryDenyList())
    fastify.decorate('revocationReplica', null)
    return
  }

  const log = fastify.log.child({ component: 'deny-list' })
  // Made during the boot, it starts with the shared client's boot timeouts and leaves them with it.
  const subscriber = redis.duplicate({ autoResubscribe: false })
  tightenOnceServing(subscriber, fastify.health.lifecycle.reached('serving'), config.REDIS_COMMAND_TIMEOUT_MS)
  // Without an 'error' listener ioredis would throw from the emitter; the shared client logs the outage.
  subscriber.on('error', () => {})
  const replica = new ReplicatedDenyList({
    redis,
    subscriber,
    channel: `${config.REDIS_KEY_PREFIX}revoked-jtis`,
    onSyncError: error => log.warn(logCause(error), 'the revocation list could not be synchronised with redis')
  })
  fastify.decorate('tokenDenyList', replica)
  fastify.decorate('revocationReplica', replica)

  await subscriber.connect().catch(() => {})
  if (redis.status === 'ready') await replica.sync().catch(() => {})

  // Until the first load succeeds, tokens with a jti are refused: try again soon rather than at the
  // next full resync.
  let timer: NodeJS.Timeout | undefined
  let closed = false
  function scheduleSync (): void {
    if (closed) return
    timer = setTimeout(() => { replica.sync().catch(() => {}).finally(scheduleSync) },
      replica.state().loaded ? config.REVOCATION_RESYNC_INTERVAL_MS : FIRST_LOAD_RETRY_MS)
    timer.unref()
  }
  scheduleSync()

  fastify.addHook('onClose', async () => {
    closed = true
    clearTimeout(timer)
    subscriber.disconnect()
  })
}

export default fp(denyList, { name: 'deny-list', fastify: '5.x', dependencies: ['config', 'redis', 'health'] })
