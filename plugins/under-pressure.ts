import fp from 'fastify-plugin'
import underPressure, { TYPE_EVENT_LOOP_DELAY, TYPE_EVENT_LOOP_UTILIZATION } from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Problem } from '../src/http/problem.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: the route keeps answering while the process sheds load (liveness, ping, probes). */
    shed?: false
  }
}

/**
 * Load shedding: while event-loop delay, event-loop utilisation, heap or RSS are past their limits,
 * routes answer a 503 problem with Retry-After at once instead of queueing more work. Probes opt out
 * with `config.shed: false`, so an orchestrator still sees a live process. The measures are also the
 * liveness check's source (`fastify.memoryUsage()`).
 */
const SAMPLE_INTERVAL_MS = 1000

async function loadShedding (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  const retryAfter = String(config.SHED_RETRY_AFTER_SECONDS)
  // The first event-loop samples measure start-up itself (modules loading, schemas compiling, the
  // embedded database opening), not load: a fresh instance must not shed its first requests for it.
  let loopReadingsCountFrom = Infinity
  fastify.addHook('onReady', async () => { loopReadingsCountFrom = Date.now() + 2 * SAMPLE_INTERVAL_MS })
  const isStartUpReading = (type: string): boolean =>
    (type === TYPE_EVENT_LOOP_DELAY || type === TYPE_EVENT_LOOP_UTILIZATION) && Date.now() < loopReadingsCountFrom
  await fastify.register(underPressure, {
    sampleInterval: SAMPLE_INTERVAL_MS,
    maxEventLoopDelay: config.SHED_MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: config.SHED_MAX_EVENT_LOOP_UTILIZATION,
    eventLoopUtilizationMode: 'interval',
    maxHeapUsedBytes: config.SHED_MAX_HEAP_USED_BYTES,
    maxRssBytes: config.SHED_MAX_RSS_BYTES,
    retryAfter: config.SHED_RETRY_AFTER_SECONDS,
    pressureHandler: async (request: FastifyRequest, reply: FastifyReply, type) => {
      if (request.routeOptions.config?.shed === false || isStartUpReading(type)) return
      // Answered here rather than thrown: an overloaded process must not also write an error line per
      // shed request. The 503s are counted in the request histogram.
      request.log.debug({ pressure: type }, 'request shed under load')
      reply.sendProblem(new Problem(503, {
        detail: 'The service is overloaded; try again shortly.',
        code: 'Overloaded',
        headers: { 'retry-after': retryAfter }
      }))
    }
  })
}

export default fp(loadShedding, { name: 'load-shedding', fastify: '5.x', dependencies: ['config', 'problem-details'] })
