import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { FastifyInstance } from 'fastify'
import { bootTimeouts, tightenOnceServing } from '../src/redis/boot-timeouts.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The shared Redis client, or null when REDIS_URL is unset. Keys are prefixed with REDIS_KEY_PREFIX.
     * Redis may be down: commands then reject quickly, so callers fall back or report, never hang.
     */
    redis: Redis | null
  }
}

// Attempts back off to at most two seconds apart and never stop: Redis may come back at any time.
function retryDelay (attempt: number): number {
  return Math.min(attempt * 200, 2_000)
}

const CONNECT_TIMEOUT_MS = 2_000

// A QUIT that gets no answer must not hold shutdown.
const QUIT_TIMEOUT_MS = 1_000

async function redisPlugin (fastify: FastifyInstance): Promise<void> {
  const { REDIS_URL: url, REDIS_KEY_PREFIX: keyPrefix, REDIS_COMMAND_TIMEOUT_MS } = fastify.config
  if (url === undefined) {
    fastify.decorate('redis', null)
    return
  }

  // ioredis is loaded only when Redis is configured: a service without REDIS_URL never has it in memory.
  const { Redis } = await import('ioredis')
  const client = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Once the instance serves, no command waits on Redis longer than REDIS_COMMAND_TIMEOUT_MS. A
    // connection silent that long with a command outstanding is Redis hung: it is dropped, so the next
    // commands fail at once instead of each waiting out its timeout, and the ready check of each
    // reconnection (INFO, under the same timeout) keeps it down until Redis answers again. During the
    // boot, the connect timeout instead (src/redis/boot-timeouts.ts).
    ...bootTimeouts(CONNECT_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS),
    // While Redis is known to be down, commands fail at once instead of queueing for its return,
    // and none is sent again after a reconnect (a request has long been answered by then).
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: retryDelay
  })

  // Without an 'error' listener ioredis would throw from the emitter and end the process.
  // One line when Redis goes away, one when it is back; the cause by code only (no host names).
  let down = false
  client.on('error', (error: NodeJS.ErrnoException) => {
    if (down) return
    down = true
    fastify.log.warn({ code: error.code ?? error.name }, 'redis is unreachable; retrying in the background')
  })
  client.on('ready', () => {
    if (!down) return
    down = false
    fastify.log.info('redis connection restored')
  })

  fastify.decorate('redis', client)
  tightenOnceServing(client, fastify.health.lifecycle.reached('serving'), REDIS_COMMAND_TIMEOUT_MS)

  // The first connection is waited for, so shared state can be loaded before traffic arrives; a Redis
  // that is down fails this at once (hung: within the connect or command timeout) and start-up goes on.
  await client.connect().catch(() => {})

  fastify.addHook('onClose', async () => {
    if (client.status === 'ready') {
      const timer = setTimeout(() => client.disconnect(), QUIT_TIMEOUT_MS)
      try {
        await client.quit()
      } catch {
        client.disconnect()
      } finally {
        clearTimeout(timer)
      }
    } else {
      client.disconnect()
    }
  })
}

export default fp(redisPlugin, { name: 'redis', fastify: '5.x', dependencies: ['config', 'health'] })
