import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import type { FastifyInstance } from 'fastify'

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

// A QUIT that gets no answer must not hold shutdown.
const QUIT_TIMEOUT_MS = 1_000

async function redisPlugin (fastify: FastifyInstance): Promise<void> {
  const { REDIS_URL: url, REDIS_KEY_PREFIX: keyPrefix } = fastify.config
  if (url === undefined) {
    fastify.decorate('redis', null)
    return
  }

  const client = new Redis(url, {
    keyPrefix,
    // Connect on the first command, so a Redis that is down never delays or stops start-up.
    lazyConnect: true,
    connectTimeout: 2_000,
    // One retry per command, then the command rejects instead of waiting for Redis to return.
    maxRetriesPerRequest: 1,
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

export default fp(redisPlugin, { name: 'redis', fastify: '5.x', dependencies: ['config'] })
