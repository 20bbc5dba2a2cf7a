import fp from 'fastify-plugin'
import type { FastifyInstance, RouteOptions } from 'fastify'

import '../src/http/route-config.js'

/**
 * HANDLER_TIMEOUT on every route that may wait on I/O: past it the request answers 503 `HandlerTimeout`
 * and its `request.signal` aborts. Set per route rather than server-wide so that routes declaring
 * `config.instant` (/ping, the probes) pay for no timer at all.
 */
async function handlerTimeout (fastify: FastifyInstance): Promise<void> {
  const limit = fastify.config.HANDLER_TIMEOUT
  if (limit === 0) return
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.handlerTimeout === undefined && route.config?.instant !== true) route.handlerTimeout = limit
  })
}

export default fp(handlerTimeout, { name: 'handler-timeout', fastify: '5.x', dependencies: ['config'] })
