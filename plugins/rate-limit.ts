import fp from 'fastify-plugin'
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { problem } from '../src/http/problems/error-catalogue.js'
import { rateLimitStore, SharedCounters } from '../src/rate-limit/shared-counters.js'
import { routePolicy } from '../src/http/policy/route-policy.js'

// After Redis failed, count locally this long before asking it again.
const REDIS_RETRY_AFTER_MS = 2_000
// Callers counted in this process at once; the one seen least recently is forgotten first.
const LOCAL_CALLERS = 10_000

/** The caller a limit applies to: the verified token's actor (as idempotency keys it), else the client address. */
export function rateLimitKey (request: FastifyRequest): string {
  const actor = request.principal?.actor
  return actor !== undefined ? `caller:${actor}` : `ip:${request.ip}`
}

async function rateLimit (fastify: FastifyInstance): Promise<void> {
  const { RATE_LIMIT_MAX: max, RATE_LIMIT_WINDOW: timeWindow } = fastify.config
  if (max === 0) {
    fastify.log.info('rate limiting is off (RATE_LIMIT_MAX=0)')
    return
  }

  // Runs before the rate-limit plugin's own onRoute hook (registered below), which then leaves these
  // routes alone: probes and the routes declaring `rateLimit: false` pay nothing.
  fastify.addHook('onRoute', function exemptRoute (this: FastifyInstance, route: RouteOptions) {
    if (!routePolicy(route, this).rateLimited) route.config = { ...route.config, rateLimit: false }
  })

  // Without Redis the plugin's own store counts in this process.
  const store = fastify.redis === null
    ? undefined
    : rateLimitStore(new SharedCounters({
      redis: fastify.redis,
      namespace: 'rate-limit:',
      retryAfterMs: REDIS_RETRY_AFTER_MS,
      onFallback: () => fastify.log.warn('rate limiting counts in this process only until redis answers again'),
      onRestored: () => fastify.log.info('rate limiting is shared through redis again')
    }))

  await fastify.register(fastifyRateLimit, {
    global: true,
    max,
    timeWindow,
    // Before the body is read and after the head's bearer check (onRequest), so a verified token's
    // subject is known, and a refused token or a missing one counts against the client address
    // before its refusal is answered (bearer-auth's preParsing hook, placed after this one).
    hook: 'preParsing',
    keyGenerator: rateLimitKey,
    store,
    cache: LOCAL_CALLERS,
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (IETF draft) and Retry-After.
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => problem('RateLimited', {
      detail: `Too many requests: at most ${context.max} per ${Math.round(timeWindow / 1000)} s; retry after ${Math.ceil(context.ttl / 1000)} s.`
    })
  })
}

export default fp(rateLimit, { name: 'rate-limit', fastify: '5.x', dependencies: ['config', 'redis', 'problem-details'] })
