import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { limitConnections, type OpenConnections } from '../src/http/connection-limits.js'
import { guardConnections } from '../src/http/connection-guard.js'
import { connectionCap, openFileLimit } from '../src/http/descriptor-limit.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's open connections (plugins/connection-drain.ts closes those at rest at shutdown). */
    openConnections: OpenConnections
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
  // own work (database, Redis, log) are never all taken by idle sockets.
  const openFiles = openFileLimit()
  const cap = config.MAX_CONNECTIONS > 0 ? config.MAX_CONNECTIONS : openFiles === undefined ? undefined : connectionCap(openFiles)
  guardConnections(fastify.server, { maxConnections: cap, silentForMs: config.NEW_CONNECTION_TIMEOUT })
  // Said once the instance is ready: a start that fails stays one line.
  fastify.addHook('onReady', async () => { fastify.log.info({ maxConnections: cap ?? null, openFileLimit: openFiles ?? null }, 'connection cap') })
}

export default fp(connectionLimits, { name: 'connection-limits', fastify: '5.x', dependencies: ['config'] })
