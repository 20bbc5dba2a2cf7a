import fp from 'fastify-plugin'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { ROUTE_STEP_ORDER, type RouteStep, type RouteStepOwner } from '../src/http/policy/route-hooks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Where a plugin puts its work on each declared route; it runs in ROUTE_STEP_ORDER (src/http/policy/route-hooks.ts). */
    routeSteps: { add: (owner: RouteStepOwner, step: RouteStep) => void }
  }
}

/**
 * One `onRoute` hook runs every plugin's route step, in the order ROUTE_STEP_ORDER gives, whatever
 * the order the plugins load in. A step sees the routes declared after its plugin added it: the
 * plugins load before routes/.
 */
async function routeHooks (fastify: FastifyInstance): Promise<void> {
  const steps = new Map<RouteStepOwner, RouteStep>()
  fastify.decorate('routeSteps', {
    add (owner: RouteStepOwner, step: RouteStep) {
      if (steps.has(owner)) throw new Error(`${owner} has a route step already`)
      steps.set(owner, step)
    }
  })
  fastify.addHook('onRoute', function applyRouteSteps (this: FastifyInstance, route: RouteOptions) {
    for (const owner of ROUTE_STEP_ORDER) steps.get(owner)?.call(this, route)
  })
}

export default fp(routeHooks, { name: 'route-hooks', fastify: '5.x' })
