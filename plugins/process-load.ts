import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'

/** How often the readings are taken. */
export const SAMPLE_INTERVAL_MS = 1000

/**
 * The process's load (event-loop delay and utilisation, heap, RSS) as `fastify.memoryUsage()`,
 * sampled by under-pressure: liveness (plugins/health.ts) and load shedding (plugins/load-shedding.ts)
 * both read it. Not under-pressure's own limits: its one onRequest hook runs on every request (probes
 * and 404s included, before the Host check) and knows nothing of start-up; without limits it only samples.
 */
async function processLoad (fastify: FastifyInstance): Promise<void> {
  await fastify.register(underPressure, { sampleInterval: SAMPLE_INTERVAL_MS, eventLoopUtilizationMode: 'interval' })
}

export default fp(processLoad, { name: 'process-load', fastify: '5.x' })
