import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Server as NetServer } from 'node:net'

// A connection at rest this long carries no request a client is about to send: closing it resets
// nothing. A client sending one request after another never rests this long.
const RESTING_GRACE_MS = 1000
const SWEEP_INTERVAL_MS = 100

function closeAfterAnswer (_request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close')
}

/**
 * Graceful shutdown, seen from a connection. During the drain delay nothing changes for connections:
 * readiness says NotReady, balancers send new clients elsewhere, and kept-alive clients go on where
 * they are (told to close, they would only reconnect here). When the server closes, the listener
 * stops accepting first, so a new connection is refused, never reset; then every answer carries
 * `Connection: close`, and a connection is closed by the server only once it has rested a second
 * with no request in it. A request a connection carries is always answered.
 */
async function connectionDrain (fastify: FastifyInstance): Promise<void> {
  // Node's HTTP server closes every idle connection the moment it stops listening, one a client is
  // sending a request on right then included (that client sees a reset). This one stops listening
  // alone, and its close completes once every connection has ended, as described above.
  const server = fastify.server as NetServer
  let ended: Promise<void> | undefined
  const stopListening = (): Promise<void> => {
    ended ??= new Promise(resolve => { NetServer.prototype.close.call(server, () => { resolve() }) })
    return ended
  }
  server.close = function closeWhenDrained (this: NetServer, callback?: (error?: Error) => void) {
    stopListening().then(() => callback?.(), callback)
    return this
  }
  let sweep: NodeJS.Timeout | undefined
  fastify.addHook('preClose', async () => {
    // The listener closes before any answer says `Connection: close`: a client told so reconnects
    // at once, and a connection still in the listener's queue when it closes would be reset.
    stopListening().catch(() => {})
    // Added only now, ahead of Fastify's own listener: serving costs nothing extra until then.
    fastify.server.prependListener('request', closeAfterAnswer)
    fastify.openConnections.closeResting(RESTING_GRACE_MS)
    sweep = setInterval(() => { fastify.openConnections.closeResting(RESTING_GRACE_MS) }, SWEEP_INTERVAL_MS)
    sweep.unref()
  })
  fastify.addHook('onClose', async () => { clearInterval(sweep) })
}

export default fp(connectionDrain, { name: 'connection-drain', fastify: '5.x', dependencies: ['config', 'connection-limits'] })
