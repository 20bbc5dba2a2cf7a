import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'

/** What one connection may make the server hold. */
export interface ConnectionLimits {
  /** Requests of one connection handled at once; later ones wait, and the connection is not read meanwhile. */
  maxPipelinedRequests: number
  /** Response bytes of one connection waiting to be sent; past it the connection is not read. */
  maxUnsentBytes: number
  /** How long a connection over `maxUnsentBytes` has to fall back under it before it is reset. */
  drainTimeoutMs: number
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void

/**
 * One connection's requests: at most `maxPipelinedRequests` are handed to the app at once, in order;
 * the rest wait here (Node parses a whole packet of pipelined requests at once) and the socket is not
 * read until the client has taken earlier answers. A client that stops reading while over
 * `maxUnsentBytes` is reset after `drainTimeoutMs`.
 */
class ConnectionGate {
  private readonly waiting: Array<[IncomingMessage, ServerResponse]> = []
  private readonly inFlight = new Set<ServerResponse>()
  private readingStopped = false
  private reviewing = false
  private drainTimer: NodeJS.Timeout | undefined
  /** When the connection last came to rest (no request in it), and how many bytes it had read then. */
  private restingSince = Date.now()
  private bytesReadAtRest = 0
  // Made once per connection, not per request: a response's listeners are called with it as `this`.
  private readonly review = (): void => { this.reviewNow() }
  private readonly finished: (this: ServerResponse) => void

  private readonly socket: Socket
  private readonly limits: ConnectionLimits
  private readonly listener: RequestListener

  constructor (socket: Socket, limits: ConnectionLimits, listener: RequestListener) {
    this.socket = socket
    this.limits = limits
    this.listener = listener
    const gate = this
    this.finished = function (this: ServerResponse) { gate.done(this) }
    socket.on('drain', this.review)
    // Node resumes a paused socket by itself (after a response, when a body is read): stop it again.
    socket.on('resume', () => { if (this.readingStopped) socket.pause() })
    socket.once('close', () => {
      clearTimeout(this.drainTimer)
      this.waiting.length = 0
    })
  }

  /**
   * How long the connection has been at rest: no request waiting or in flight, nothing unsent, and
   * no byte received since its last answer (a request on its way is not rest). 0 when not at rest.
   */
  restingFor (now: number): number {
    if (this.busy || this.waiting.length > 0 || this.socket.bytesRead !== this.bytesReadAtRest) return 0
    return now - this.restingSince
  }

  admit (request: IncomingMessage, response: ServerResponse): void {
    if (this.waiting.length === 0 && !this.reviewing && this.hasRoom()) {
      this.dispatch(request, response)
      this.reviewNow()
      return
    }
    this.waiting.push([request, response])
    this.reviewNow()
  }

  private hasRoom (): boolean {
    return this.inFlight.size < this.limits.maxPipelinedRequests && this.unsentBytes() <= this.limits.maxUnsentBytes
  }

  /** A response is still being produced or sent, or bytes wait in the socket. */
  get busy (): boolean {
    return this.inFlight.size > 0 || this.socket.writableLength > 0
  }

  /** Bytes written by the app and not yet taken by the kernel: the socket's buffer and the answers queued behind it. */
  private unsentBytes (): number {
    let bytes = this.socket.writableLength
    for (const response of this.inFlight) if (response.socket === null) bytes += response.writableLength
    return bytes
  }

  private reviewNow (): void {
    // A response may be written while a request is handed over; the outer review sees it.
    if (this.reviewing || this.socket.destroyed) return
    this.reviewing = true
    try {
      while (this.waiting.length > 0 && this.hasRoom()) {
        const [request, response] = this.waiting.shift()!
        this.dispatch(request, response)
      }
    } finally {
      this.reviewing = false
    }
    const overUnsent = this.unsentBytes() > this.limits.maxUnsentBytes
    this.setReading(this.waiting.length === 0 && this.inFlight.size < this.limits.maxPipelinedRequests && !overUnsent)
    if (overUnsent) this.awaitDrain()
    else this.stopAwaitingDrain()
  }

  private dispatch (request: IncomingMessage, response: ServerResponse): void {
    this.inFlight.add(response)
    // prefinish: the whole answer is in the socket, so its unsent bytes are known. close: the answer
    // is sent (a response closes once finished) or its connection is gone. Each event comes once per
    // response, so the listeners need no removing (`once` would wrap each one per request).
    response.on('prefinish', this.review)
    response.on('close', this.finished)
    this.listener(request, response)
  }

  /** The response is sent, or its connection gone. */
  private done (response: ServerResponse): void {
    if (!this.inFlight.delete(response)) return
    this.restingSince = Date.now()
    this.bytesReadAtRest = this.socket.bytesRead
    this.reviewNow()
  }

  private setReading (allowed: boolean): void {
    if (allowed !== this.readingStopped) return
    this.readingStopped = !allowed
    if (allowed) this.socket.resume()
    else this.socket.pause()
  }

  private awaitDrain (): void {
    if (this.drainTimer !== undefined) return
    this.drainTimer = setTimeout(() => {
      this.drainTimer = undefined
      if (this.unsentBytes() > this.limits.maxUnsentBytes) reset(this.socket)
      else this.reviewNow()
    }, this.limits.drainTimeoutMs)
    this.drainTimer.unref()
  }

  private stopAwaitingDrain (): void {
    clearTimeout(this.drainTimer)
    this.drainTimer = undefined
  }
}

/**
 * Closes a connection at once, with a TCP reset: a plain close would leave the unsent answers (and the
 * connection) in the kernel for as long as a client that does not read keeps its window shut.
 */
function reset (socket: Socket): void {
  // Only a TCP socket can send a reset: a TLS socket wraps one, which Node keeps as `_parent`.
  const tcp = (socket as Socket & { _parent?: Socket })._parent ?? socket
  try {
    tcp.resetAndDestroy()
  } catch {
    socket.destroy()
  }
}

/** The server's open connections, as the drain at shutdown sees them. */
export interface OpenConnections {
  /** Closes every connection at rest for at least `ms` (see ConnectionGate.restingFor) and since `since` (epoch ms). */
  closeResting: (ms: number, since?: number) => void
}

/**
 * Bounds what one connection can make the server hold: pipelined requests handed to the app at once,
 * unsent response bytes, and the time a connection with answers still to send stays open after
 * the socket's inactivity timeout (Node closes it gracefully, which a client that does not read
 * never completes). Wraps the server's request listeners, so call it before the server listens.
 */
export function limitConnections (server: Server, limits: ConnectionLimits): OpenConnections {
  const listeners = server.listeners('request') as RequestListener[]
  const app: RequestListener = (request, response) => { for (const listener of listeners) listener(request, response) }
  const gates = new Map<Socket, ConnectionGate>()
  server.removeAllListeners('request')
  // A connection is the TLS socket on an HTTPS server: the one its requests name.
  server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    gates.set(socket, new ConnectionGate(socket, limits, app))
    socket.once('close', () => { gates.delete(socket) })
  })
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let gate = gates.get(request.socket)
    if (gate === undefined) {
      // A socket handed to the server without a connection event (a test's, an upgrade's).
      gate = new ConnectionGate(request.socket, limits, app)
      gates.set(request.socket, gate)
      request.socket.once('close', () => { gates.delete(request.socket) })
    }
    gate.admit(request, response)
  })
  // A listener here replaces Node's own close on CONNECTION_TIMEOUT.
  server.on('timeout', (socket: Socket) => {
    if (gates.get(socket)?.busy === true || socket.writableLength > 0) reset(socket)
    else socket.destroy()
  })
  return {
    closeResting (ms, since = 0) {
      const atRest = (gate: ConnectionGate, now: number): boolean => Math.min(gate.restingFor(now), now - since) >= ms
      const resting = [...gates].filter(([, gate]) => atRest(gate, Date.now()))
      if (resting.length === 0) return
      // Decided again after the event loop's next poll for I/O: a request already in the kernel's
      // buffer (sent while the loop was busy) is read first, so its connection is no longer at rest.
      // Closed with unread bytes, the connection would reset the client.
      setImmediate(() => {
        const now = Date.now()
        for (const [socket, gate] of resting) if (atRest(gate, now)) socket.destroy()
      })
    }
  }
}
