import type { FastifyRequest } from 'fastify'

// Tokens may travel in the query string (RFC 6750 section 2.3); they never reach a log line.
const SECRET_QUERY_PARAMETER = /([?&](?:access_token|token|client_secret)=)[^&#]*/gi

export function redactUrl (url: string): string {
  return url.includes('=') ? url.replace(SECRET_QUERY_PARAMETER, '$1[Redacted]') : url
}

/** How a request appears in a log line (pino's `req` serializer): no header, query object or body. */
export function serializeRequest (req: FastifyRequest) {
  return {
    method: req.method,
    // The URL as sent: `/api/v2/x` stays visible after the router rewrote it to `/api/x`.
    url: redactUrl(req.originalUrl),
    host: req.host,
    remoteAddress: req.ip
  }
}
