import type { Server, Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'

/** What a listener holds open, whoever its clients are. */
export interface ConnectionGuard {
  /** Connections held open at once; more are closed as they arrive. Undefined: no cap. */
  maxConnections: number | undefined
  /** How long a new connection may send nothing before it is closed. */
  silentForMs: number
}

/**
 * Caps a listener's connections and closes those that stay silent: until its first byte no request
 * timeout applies to a connection, and thousands of silent sockets would each hold memory and a
 * descriptor. Nothing is read from the socket here; Node's parser reads it as ever. Over HTTPS the
 * handshake is not a request: the connection must also send a byte of its own once it is encrypted.
 */
export function guardConnections (server: Server, guard: ConnectionGuard): void {
  if (guard.maxConnections !== undefined) server.maxConnections = guard.maxConnections
  const closeIfSilent = (socket: Socket, spoke: () => boolean): void => {
    const timer = setTimeout(() => { if (!spoke()) socket.destroy() }, guard.silentForMs)
    timer.unref()
    socket.once('close', () => { clearTimeout(timer) })
  }
  server.on('connection', (socket: Socket) => { closeIfSilent(socket, () => socket.bytesRead > 0) })
  server.on('secureConnection', (socket: TLSSocket) => {
    let spoke = false
    socket.once('data', () => { spoke = true })
    closeIfSilent(socket, () => spoke)
  })
}
