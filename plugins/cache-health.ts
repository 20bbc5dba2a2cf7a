import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { CheckDetails } from '../src/health/registry.ts'

/**
 * The `cache` check, when REDIS_URL is set. Not critical: without Redis the service serves token checks
 * from its replica of the revocation list and counts rate limits locally, so a lost cache degrades
 * readiness (200, `Degraded`, with the replica's age) instead of taking instances out of rotation.
 * The `revocations` check is the one thing Redis gates: until the replica is first loaded, tokens with
 * a `jti` cannot be checked and are refused (503), so readiness says NotReady too.
 */
async function cacheHealth (fastify: FastifyInstance): Promise<void> {
  const { redis, revocationReplica: replica } = fastify
  if (redis === null || replica === null) return

  fastify.health.register('cache', async () => {
    const reachable = await redis.ping().then(() => true, () => false)
    const state = replica.state()
    const details: CheckDetails = { kind: 'redis', reachable, revocationReplica: state.live ? 'live' : state.loaded ? 'stale' : 'empty', revokedTokens: state.revoked, unsentRevocations: state.unsent }
    if (state.ageMs !== undefined) details.revocationReplicaAgeMs = state.ageMs
    return { status: reachable && state.live ? 'Healthy' : 'Degraded', details }
  }, { tags: ['ready', 'deep'], critical: false })

  fastify.health.register('revocations', () => {
    return replica.state().loaded ? 'Healthy' : 'NotReady'
  }, { tags: ['ready', 'deep'], critical: true })
}

export default fp(cacheHealth, { name: 'cache-health', fastify: '5.x', dependencies: ['health', 'redis', 'deny-list'] })
