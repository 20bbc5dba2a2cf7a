import type { FastifyRequest } from 'fastify'

// Tokens may travel in the query string (RFC 6750 section 2.3); they never reach a log line. A
// parameter is judged by its name as the query parser reads it (`%61ccess_token`, `access%5Ftoken`
// and `access+token` are decoded first), and anything naming a token or secret is masked, including
// names the parser would refuse (`access_token%00`): masking too much costs a log reader little.
const SECRET_NAME = /token|secret/

function percentDecoded (name: string): string {
  return name.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}

function redactParameter (parameter: string): string {
  const equals = parameter.indexOf('=')
  if (equals === -1) return parameter
  const name = parameter.slice(0, equals)
  return SECRET_NAME.test(percentDecoded(name).toLowerCase()) ? `${name}=[Redacted]` : parameter
}

/** The URL with the value of every query parameter that names a token or secret masked. */
export function redactUrl (url: string): string {
  const query = url.indexOf('?')
  if (query === -1 || !url.includes('=', query)) return url
  return url.slice(0, query + 1) + url.slice(query + 1).split('&').map(redactParameter).join('&')
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
