import fp from 'fastify-plugin'
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { rateLimitStore, SharedCounters } from '../src/rate-limit/shared-counters.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'

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
    // Not on every route: the step below adds the limit to the routes whose policy says so, in its
    // place among the other plugins' hooks (src/http/policy/route-hooks.ts). Probes pay nothing.
    global: false,
    max,
    timeWindow,
    keyGenerator: rateLimitKey,
    store,
    cache: LOCAL_CALLERS,
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (IETF draft) and Retry-After.
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => problem('RateLimited', {
      detail: `Too many requests: at most ${context.max} per ${Math.round(timeWindow / 1000)} s; retry after ${Math.ceil(context.ttl / 1000)} s.`
    })
  })

  // A preParsing hook: before the body is read and after the head's bearer check (onRequest), so a
  // verified token's subject is known, and a refused token or a missing one counts against the client
  // address before its refusal is answered (bearer-auth's preParsing hook, added after this one).
  const limit = fastify.rateLimit()
  fastify.routeSteps.add('rate-limit', function limitRoute (this: FastifyInstance, route: RouteOptions) {
    // The library would add its own hook for such a route, out of the order above.
    if (typeof route.config?.rateLimit === 'object') throw new Error(`Route ${route.url}: a route's own rate limit settings are not supported; it is limited (the default) or not (rateLimit: false)`)
    if (routePolicy(route, this).rateLimited) addRouteHook(route, 'preParsing', limit as never)
  })
}

export default fp(rateLimit, { name: 'rate-limit', fastify: '5.x', dependencies: ['config', 'redis', 'problem-details', 'route-hooks'] })
