import { newRequestId } from '../conventions/request-id.ts'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { NO_STORE_HEADERS } from '../conventions/no-store.ts'
import { type Problem, PROBLEM_CONTENT_TYPE, problemBody } from '../problems/problem.ts'
import { problem } from '../problems/error-catalogue.ts'

// Written by hand on the socket: the headers every other answer gets from the http-conventions plugin.
const NO_STORE_LINES = Object.entries(NO_STORE_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('')

// Node's parser refuses these before Fastify sees a request; the answer is still a problem document.
function problemFor (code: string | undefined): Problem {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return problem('RequestTimeout')
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return problem('HeadersTooLarge')
  }
  return problem('MalformedRequest')
}

// `GET /api/v1/vagas?x=1 HTTP/1.1`: the path (printable ASCII, up to a query or fragment) is kept.
const REQUEST_LINE = /^[A-Z]+ (\/[!-"$->@-~]*)[!-~]* HTTP\/1\.[01]\r$/

/**
 * The path of the refused request, for the problem's `instance`: read from the bytes Node refused,
 * which begin with the request line when the client wrote its head at once (as clients do); else `/`.
 */
function refusedPath (rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/'
  const lineEnd = rawPacket.indexOf(10)
  if (lineEnd === -1) return '/'
  return REQUEST_LINE.exec(rawPacket.toString('latin1', 0, lineEnd))?.[1] ?? '/'
}

/** Fastify's clientErrorHandler: answers a request Node could not parse or did not receive in time. */
export function clientErrorHandler (this: FastifyInstance, error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const problem = problemFor(error.code)
  // No request was parsed, so no caller's id can be kept: a fresh one ties the answer to the log line.
  const requestId = newRequestId()
  this.log.debug({ code: error.code, reqId: requestId }, 'client error')
  if (socket.writable) {
    const body = JSON.stringify(problemBody(problem, refusedPath(error.rawPacket), requestId))
    socket.write(`HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n${NO_STORE_LINES}Connection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}
