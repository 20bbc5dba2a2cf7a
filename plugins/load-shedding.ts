import fp from 'fastify-plugin'
import { TYPE_EVENT_LOOP_DELAY, TYPE_EVENT_LOOP_UTILIZATION, TYPE_HEAP_USED_BYTES, TYPE_RSS_BYTES } from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { SAMPLE_INTERVAL_MS } from './process-load.ts'

/**
 * Load shedding: while event-loop delay, event-loop utilisation, heap or RSS are past their limits,
 * routes answer a 503 problem with Retry-After at once instead of queueing more work. The readings
 * are plugins/process-load.ts's; the limits are applied by a hook on each route whose policy says `shed`. Probes are not shed and so
 * run no shedding code at all: under-pressure's own hook would run on every request, /ping included.
 */
async function loadShedding (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  const overloaded = problem('Overloaded')
  // Nothing is shed until the instance first turns ready: until then business routes answer `Starting`
  // (plugins/starting-gate.ts), and the event-loop samples measure start-up itself (modules loading,
  // schemas compiling, the database opening, migrations), not load. Event-loop readings count from two
  // samples later, so a fresh instance never sheds its first requests for its own start-up work.
  let serving = false
  let loopReadingsCountFrom = Infinity
  fastify.health.lifecycle.reached('serving').then(() => {
    serving = true
    loopReadingsCountFrom = Date.now() + 2 * SAMPLE_INTERVAL_MS
  }, () => {})

  /** The measure past its limit, if any. */
  function pressure (): string | undefined {
    if (!serving) return undefined
    const now = fastify.memoryUsage()
    const loopCounts = Date.now() >= loopReadingsCountFrom
    if (config.SHED_MAX_HEAP_USED_BYTES > 0 && now.heapUsed > config.SHED_MAX_HEAP_USED_BYTES) return TYPE_HEAP_USED_BYTES
    if (config.SHED_MAX_RSS_BYTES > 0 && now.rssBytes > config.SHED_MAX_RSS_BYTES) return TYPE_RSS_BYTES
    if (!loopCounts) return undefined
    if (config.SHED_MAX_EVENT_LOOP_DELAY_MS > 0 && now.eventLoopDelay > config.SHED_MAX_EVENT_LOOP_DELAY_MS) return TYPE_EVENT_LOOP_DELAY
    if (config.SHED_MAX_EVENT_LOOP_UTILIZATION > 0 && now.eventLoopUtilized > config.SHED_MAX_EVENT_LOOP_UTILIZATION) return TYPE_EVENT_LOOP_UTILIZATION
    return undefined
  }

  function shedUnderPressure (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const type = pressure()
    if (type === undefined) return done()
    // Answered here rather than thrown: an overloaded process must not also write an error line per
    // shed request. The 503s are counted in the request histogram.
    request.log.debug({ pressure: type }, 'request shed under load')
    reply.sendProblem(overloaded)
  }

  const anyLimit = config.SHED_MAX_EVENT_LOOP_DELAY_MS > 0 || config.SHED_MAX_EVENT_LOOP_UTILIZATION > 0 ||
    config.SHED_MAX_HEAP_USED_BYTES > 0 || config.SHED_MAX_RSS_BYTES > 0
  if (!anyLimit) return
  fastify.routeSteps.add('load-shedding', function guardLoad (this: FastifyInstance, route: RouteOptions) {
    if (routePolicy(route, this).shed) addRouteHook(route, 'onRequest', shedUnderPressure)
  })
}

export default fp(loadShedding, { name: 'load-shedding', fastify: '5.x', dependencies: ['config', 'problem-details', 'process-load', 'health', 'route-hooks'] })
