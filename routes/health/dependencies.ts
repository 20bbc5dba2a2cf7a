import type { FastifyPluginAsync } from 'fastify'
import { healthDetailRoutes } from '../../src/health/detail-routes.ts'

/** The detailed health endpoints on the service's port; the management listener serves them too. */
const dependencies: FastifyPluginAsync = async fastify => {
  await fastify.register(healthDetailRoutes)
}

export default dependencies
