import fp from 'fastify-plugin'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { routePolicy } from '../src/http/policy/route-policy.ts'

/**
 * Routes whose policy writes no access log (the probes, polled every few seconds) log at `warn`: no
 * line per request, while their warnings and errors are still logged. A level the route sets wins.
 */
async function accessLog (fastify: FastifyInstance): Promise<void> {
  fastify.routeSteps.add('access-log', function quietRoute (this: FastifyInstance, route: RouteOptions) {
    if (!routePolicy(route, this).accessLog && (route.logLevel ?? '') === '') route.logLevel = 'warn'
  })
}

export default fp(accessLog, { name: 'access-log', fastify: '5.x', dependencies: ['route-hooks'] })
