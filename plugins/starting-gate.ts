import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** A hook: 503 `Starting` until readiness has been Healthy once. */
    untilServing: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void
  }
}

function asArray<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/**
 * Business routes take work only once readiness has been Healthy: before that (booting, opening the
 * database, database unreachable since start) they answer 503 `Starting` with Retry-After, never
 * `Overloaded` (nothing is shed before then). Routes whose policy says `database` get this gate and
 * then the database's own (503 `DatabaseUnavailable` at once while it is down), as preHandler hooks:
 * after authentication and validation, so a bad request is refused as such whatever the state.
 */
async function startingGate (fastify: FastifyInstance): Promise<void> {
  const { lifecycle } = fastify.health
  const starting = problem('Starting')
  function untilServing (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (lifecycle.entered('serving')) return done()
    reply.sendProblem(starting)
  }
  fastify.decorate('untilServing', untilServing)

  function untilDatabaseReady (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    try {
      fastify.storage.assertReady()
    } catch (error) {
      return done(error as Error)
    }
    done()
  }

  fastify.routeSteps.add('starting-gate', function gateRoute (this: FastifyInstance, route: RouteOptions) {
    if (routePolicy(route, this).database) route.preHandler = [untilServing, untilDatabaseReady, ...asArray(route.preHandler)]
  })
}

export default fp(startingGate, { name: 'starting-gate', fastify: '5.x', dependencies: ['health', 'problem-details', 'storage', 'route-hooks'] })
