import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

/**
 * The `cache` check, when REDIS_URL is set. Not critical: without Redis the service falls back to local
 * state, so a lost cache degrades readiness (200, `Degraded`) instead of taking instances out of rotation.
 */
async function cacheHealth (fastify: FastifyInstance): Promise<void> {
  const redis = fastify.redis
  if (redis === null) return
  fastify.health.register('cache', async () => {
    await redis.ping()
    return { status: 'Healthy', details: { kind: 'redis' } }
  }, { tags: ['ready', 'deep'], critical: false })
}

export default fp(cacheHealth, { name: 'cache-health', fastify: '5.x', dependencies: ['health', 'redis'] })
