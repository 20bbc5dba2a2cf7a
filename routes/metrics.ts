import type { FastifyPluginAsync } from 'fastify'
import { metricsRoute } from '../src/metrics/metrics-route.ts'

/** `/metrics` on the service's port; the management listener serves it too. */
const metrics: FastifyPluginAsync = async fastify => {
  await fastify.register(metricsRoute)
}

export default metrics
