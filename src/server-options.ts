import { randomUUID } from 'node:crypto'
import type { FastifyServerOptions, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { trustProxyOption, type Config } from './config.js'
import { apiVersionStrategy, rewriteVersionedUrl } from './versioning/routing.js'
import { buildVersionTable } from './versioning/versions.js'
import { createChildLoggerFactory } from './logging/request-logger.js'

// A caller's request id is kept only when it is short and made of safe characters.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/

export function requestId (req: IncomingMessage): string {
  const offered = req.headers['x-request-id']
  return typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID()
}

// Tokens may travel in the query string (RFC 6750 section 2.3); they never reach a log line.
const SECRET_QUERY_PARAMETER = /([?&](?:access_token|token|client_secret)=)[^&#]*/gi

export function redactUrl (url: string): string {
  return url.includes('=') ? url.replace(SECRET_QUERY_PARAMETER, '$1[Redacted]') : url
}

function serializeRequest (req: FastifyRequest) {
  return {
    method: req.method,
    // The URL as sent: `/api/v2/x` stays visible after the router rewrote it to `/api/x`.
    url: redactUrl(req.originalUrl),
    host: req.host,
    remoteAddress: req.ip
  }
}

/** The Fastify options shared by the server process and the tests. */
export function serverOptions (config: Config): FastifyServerOptions {
  return {
    logger: {
      level: config.LOG_LEVEL,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["set-cookie"]', 'req.query.access_token', 'req.body.access_token'],
        censor: '[Redacted]'
      },
      serializers: { req: serializeRequest as never }
    },
    childLoggerFactory: createChildLoggerFactory(),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.BODY_LIMIT,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // API versions: `/api/v2/x` reaches the route declared at `/api/x`, with version 2.0.
    rewriteUrl: rewriteVersionedUrl,
    routerOptions: { constraints: { apiVersion: apiVersionStrategy(buildVersionTable(config), config.API_VENDOR_NAME) } },
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false } }
  }
}
