import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify'

import { routePolicy } from '../src/http/policy/route-policy.ts'

/**
 * The handler, except that what it returns or throws after the timeout has already answered is
 * dropped: Fastify would otherwise try to send it too and log "Reply was already sent" (or log the
 * late error) for every timed-out request.
 */
function droppingLateResults (handler: RouteHandlerMethod): RouteHandlerMethod {
  return function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const result = handler.call(this, request, reply) as unknown
    if (!(result instanceof Promise)) return result
    return result.then(
      payload => reply.sent ? undefined : payload,
      (error: unknown) => { if (!reply.sent) throw error }
    )
  } as RouteHandlerMethod
}

/**
 * HANDLER_TIMEOUT on every reading route that may wait on I/O: past it the request answers 503
 * `HandlerTimeout` and its `request.signal` aborts. Set per route rather than server-wide so that
 * routes declaring `handlerTimer: false` (/ping, the probes) pay for no timer at all.
 *
 * A write is never answered by the timer: a 503 must mean nothing was done, and a write the timer
 * answered could still commit after it. Its deadline is the database's instead (statement_timeout
 * and lock_timeout, a second under HANDLER_TIMEOUT: plugins/storage.ts), so it answers its outcome
 * in time: done, or 503 `HandlerTimeout` once its transaction is rolled back.
 */
function reads (route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return methods.every(method => method === 'GET' || method === 'HEAD')
}

async function handlerTimeout (fastify: FastifyInstance): Promise<void> {
  const limit = fastify.config.HANDLER_TIMEOUT
  if (limit === 0) return
  const wrapped = new WeakSet<RouteHandlerMethod>()
  fastify.routeSteps.add('handler-timeout', function timeRoute (this: FastifyInstance, route: RouteOptions) {
    if (route.handlerTimeout === undefined && routePolicy(route, this).timed && reads(route)) route.handlerTimeout = limit
    // A GET route's options come back for its HEAD route: its handler is wrapped once.
    if (route.handlerTimeout !== undefined && !wrapped.has(route.handler)) {
      route.handler = droppingLateResults(route.handler)
      wrapped.add(route.handler)
    }
  })
}

export default fp(handlerTimeout, { name: 'handler-timeout', fastify: '5.x', dependencies: ['config', 'route-hooks'] })
