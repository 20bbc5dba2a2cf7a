import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { limitConnections } from '../src/http/connection-limits.js'

/** Bounds what one connection can make the server hold, on the HTTP or HTTPS server alike (docs/operations.md, "Limits"). */
async function connectionLimits (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  limitConnections(fastify.server, {
    maxPipelinedRequests: config.MAX_PIPELINED_REQUESTS,
    maxUnsentBytes: config.MAX_UNSENT_BYTES_PER_CONNECTION,
    drainTimeoutMs: config.UNSENT_DRAIN_TIMEOUT_MS
  })
}

export default fp(connectionLimits, { name: 'connection-limits', fastify: '5.x', dependencies: ['config'] })
