import type { IncomingMessage } from 'node:http'

/** After an early answer, the rest of a request's body is read and dropped up to these bounds. */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024
export const DRAIN_MAX_MS = 5_000

function announcesBody (request: IncomingMessage): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Whether `request` is being answered before its body was all received (a 413 from its length, a 401
 * or 415 from its head). Closing the connection then would reset it under a client still sending, which
 * sees a broken pipe instead of its answer: the kernel resets a socket closed with bytes unread.
 */
export function answeredEarly (request: IncomingMessage): boolean {
  // Not `complete`, which says what the parser received: a body read to its end has `readableEnded`,
  // in a real request and in an injected one alike.
  return !request.readableEnded && !request.destroyed && announcesBody(request)
}

/**
 * Reads and drops the rest of the body, as nginx's lingering close does, and Node's parser goes on to
 * the connection's next request; a client that sends more than DRAIN_MAX_BYTES, or is still sending
 * DRAIN_MAX_MS after its answer, has its connection closed.
 */
export function drainRestOfBody (request: IncomingMessage): void {
  const socket = request.socket
  let received = 0
  const count = (chunk: Buffer): void => {
    received += chunk.length
    if (received > DRAIN_MAX_BYTES) socket.destroy()
  }
  const timer = setTimeout(() => { socket.destroy() }, DRAIN_MAX_MS).unref()
  const done = (): void => {
    clearTimeout(timer)
    request.off('data', count)
  }
  request.on('data', count)
  request.once('end', done)
  socket.once('close', done)
  request.resume()
}
