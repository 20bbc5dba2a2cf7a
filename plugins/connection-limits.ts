import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { limitConnections, type OpenConnections } from '../src/http/transport/connection-limits.ts'
import { guardConnections } from '../src/http/transport/connection-guard.ts'
import { connectionCap, openFileLimit, shareConnections, type ConnectionCaps } from '../src/http/transport/descriptor-limit.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's open connections (plugins/connection-drain.ts closes those at rest at shutdown). */
    openConnections: OpenConnections
    /** The connections the service's port and the management listener may each hold: one budget, shared. */
    connectionCaps: ConnectionCaps
  }
}

/** Bounds what one connection can make the server hold, on the HTTP or HTTPS server alike (docs/operations.md, "Limits"). */
async function connectionLimits (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  const open = limitConnections(fastify.server, {
    maxPipelinedRequests: config.MAX_PIPELINED_REQUESTS,
    maxUnsentBytes: config.MAX_UNSENT_BYTES_PER_CONNECTION,
    drainTimeoutMs: config.UNSENT_DRAIN_TIMEOUT_MS
  })
  fastify.decorate('openConnections', open)

  // Connections past the cap are closed as they arrive: the descriptors the process needs for its
  // own work (database, Redis, log) are never all taken by idle sockets. The management listener
  // (plugins/management.ts) takes its share of the same budget.
  const openFiles = openFileLimit()
  const budget = config.MAX_CONNECTIONS > 0 ? config.MAX_CONNECTIONS : openFiles === undefined ? undefined : connectionCap(openFiles)
  const caps = shareConnections(budget, config.MANAGEMENT_PORT !== undefined)
  fastify.decorate('connectionCaps', caps)
  guardConnections(fastify.server, { maxConnections: caps.api, silentForMs: config.NEW_CONNECTION_TIMEOUT })
  // Said once the instance is ready: a start that fails stays one line.
  fastify.addHook('onReady', async () => {
    const management = caps.management === undefined ? {} : { managementMaxConnections: caps.management }
    fastify.log.info({ maxConnections: caps.api ?? null, ...management, openFileLimit: openFiles ?? null }, 'connection cap')
  })
}

export default fp(connectionLimits, { name: 'connection-limits', fastify: '5.x', dependencies: ['config'] })
