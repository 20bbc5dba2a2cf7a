import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Server as NetServer } from 'node:net'

declare module 'fastify' {
  interface FastifyInstance {
    /** Stops accepting connections; the open ones go on until the app's close ends them. */
    stopAccepting: () => Promise<void>
  }
}

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
 * stops accepting first, so a new connection is refused (bar one the kernel queued in the instant
 * the listener closes: the kernel resets it, unread); then every answer carries
 * `Connection: close`, and a connection is closed by the server only once it has rested a second,
 * counted from the start of the close, with no request in it. A request a connection carries is always answered.
 */
async function connectionDrain (fastify: FastifyInstance): Promise<void> {
  // Node's HTTP server closes every idle connection the moment it stops listening, one a client is
  // sending a request on right then included (that client sees a reset). This one stops listening
  // alone, and its close completes once every connection has ended, as described above.
  const server = fastify.server as NetServer
  let stopping: { listenerClosed: Promise<void>, connectionsEnded: Promise<void> } | undefined
  // The listener closes after the event loop's next poll for I/O, which accepts every connection
  // already waiting in its queue: closing it with connections queued would reset them.
  const stopListening = () => {
    if (stopping !== undefined) return stopping
    let ended: () => void = () => {}
    const connectionsEnded = new Promise<void>(resolve => { ended = resolve })
    const listenerClosed = new Promise<void>(resolve => {
      setImmediate(() => {
        NetServer.prototype.close.call(server, () => { ended() })
        resolve()
      })
    })
    stopping = { listenerClosed, connectionsEnded }
    return stopping
  }
  server.close = function closeWhenDrained (this: NetServer, callback?: (error?: Error) => void) {
    stopListening().connectionsEnded.then(() => callback?.(), callback)
    return this
  }
  // The listener closes before any answer says `Connection: close`: a client told so reconnects at
  // once, and a connection still in the listener's queue when it closes would be reset. Fastify's
  // close marks every answer so from its first step, before the preClose hooks run: the process
  // stops accepting before it closes the app.
  fastify.decorate('stopAccepting', async () => { await stopListening().listenerClosed })
  let sweep: NodeJS.Timeout | undefined
  fastify.addHook('preClose', async () => {
    await stopListening().listenerClosed
    // Added only now, ahead of Fastify's own listener: serving costs nothing extra until then.
    fastify.server.prependListener('request', closeAfterAnswer)
    // Counted from now: a connection that rested long before still gets its second, in which a client
    // that picks it from its pool is answered (told to close) instead of meeting it closed.
    const began = Date.now()
    sweep = setInterval(() => { fastify.openConnections.closeResting(RESTING_GRACE_MS, began) }, SWEEP_INTERVAL_MS)
    sweep.unref()
  })
  fastify.addHook('onClose', async () => { clearInterval(sweep) })
}

export default fp(connectionDrain, { name: 'connection-drain', fastify: '5.x', dependencies: ['config', 'connection-limits'] })
