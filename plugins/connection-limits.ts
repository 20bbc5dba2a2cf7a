import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { limitConnections, type OpenConnections } from '../src/http/connection-limits.js'
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
  if (cap !== undefined) fastify.server.maxConnections = cap
  // Said once the instance is ready: a start that fails stays one line.
  fastify.addHook('onReady', async () => { fastify.log.info({ maxConnections: cap ?? null, openFileLimit: openFiles ?? null }, 'connection cap') })

  // A connection that sends nothing is closed after NEW_CONNECTION_TIMEOUT: until its first byte
  // no request timeout applies to it, and thousands of silent sockets would each hold memory and a
  // descriptor. Nothing is read from the socket here; Node's parser reads it as ever.
  // Over HTTPS the handshake is not a request: the connection must also send a byte of its own once
  // it is encrypted.
  const silentFor = config.NEW_CONNECTION_TIMEOUT
  const closeIfSilent = (socket: Socket, spoke: () => boolean): void => {
    const timer = setTimeout(() => { if (!spoke()) socket.destroy() }, silentFor)
    timer.unref()
    socket.once('close', () => { clearTimeout(timer) })
  }
  fastify.server.on('connection', (socket: Socket) => { closeIfSilent(socket, () => socket.bytesRead > 0) })
  fastify.server.on('secureConnection', (socket: TLSSocket) => {
    let spoke = false
    socket.once('data', () => { spoke = true })
    closeIfSilent(socket, () => spoke)
  })
}

export default fp(connectionLimits, { name: 'connection-limits', fastify: '5.x', dependencies: ['config'] })
