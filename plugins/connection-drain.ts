import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'

// Kept-alive connections busy when the drain begins have turned over well within this (each answer
// closes its connection); a connection still idle after it is one a client is not using.
const LONGEST_IDLE_GRACE_MS = 1000

function closeAfterAnswer (_request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close')
}

/**
 * Graceful shutdown, seen from a connection: from the first moment of the drain every answer carries
 * `Connection: close`, so kept-alive clients (and balancers) open their next request elsewhere instead
 * of finding the connection gone; connections left idle are closed shortly after. No request is cut:
 * a request a connection already carries is answered, and the server stops accepting only after the
 * drain delay (src/server.ts).
 */
async function connectionDrain (fastify: FastifyInstance): Promise<void> {
  const grace = Math.min(LONGEST_IDLE_GRACE_MS, Math.floor(fastify.config.SHUTDOWN_DRAIN_DELAY_MS / 2))
  let idleTimer: NodeJS.Timeout | undefined

  fastify.addHook('onReady', async () => {
    fastify.health.lifecycle.reached('draining').then(() => {
      // Added only now, ahead of Fastify's own listener: serving costs nothing extra until the drain.
      fastify.server.prependListener('request', closeAfterAnswer)
      idleTimer = setTimeout(() => { fastify.server.closeIdleConnections() }, grace)
      idleTimer.unref()
    }, () => {})
  })
  fastify.addHook('onClose', async () => { clearTimeout(idleTimer) })
}

export default fp(connectionDrain, { name: 'connection-drain', fastify: '5.x', dependencies: ['config', 'health'] })
