import type { FastifyPluginAsync } from 'fastify'
import { probeRoutes } from '../../src/health/probe-routes.ts'

/** The probes on the service's port; the management listener serves them too. */
const probes: FastifyPluginAsync = async fastify => {
  await fastify.register(probeRoutes)
}

export default probes
