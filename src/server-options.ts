import type { FastifyServerOptions } from 'fastify'
import type { ServerOptions } from 'node:http'
import { trustProxyOption, type Config } from './config.ts'
import { clientErrorHandler } from './http/transport/client-error.ts'
import { schemaController } from './http/input/schema-compilers.ts'
import { frameworkErrors } from './http/problems/framework-errors.ts'
import { requestId } from './http/conventions/request-id.ts'
import { apiVersionStrategy, rewriteVersionedUrl } from './versioning/routing.ts'
import { API_VERSION_ROWS, buildVersionTable, type ApiVersionRow } from './versioning/versions.ts'
import { AccessLogController } from './logging/access-log.ts'
import { serializeRequest } from './logging/request-serializer.ts'
import { activeTraceLogFields } from './tracing/request-span.ts'

// Node's default for the head alone; it may not exceed the time allowed for the whole request.
const NODE_HEADERS_TIMEOUT = 60_000

function httpOptions (config: Config): ServerOptions {
  const headersTimeout = config.REQUEST_TIMEOUT > 0 ? Math.min(config.REQUEST_TIMEOUT, NODE_HEADERS_TIMEOUT) : NODE_HEADERS_TIMEOUT
  return {
    maxHeaderSize: config.HEADER_LIMIT,
    // A request without Host is answered by plugins/http-conventions.ts, as a problem document.
    requireHostHeader: false,
    headersTimeout,
    // Node looks for late requests every 30 s by default; look often enough that a short limit holds.
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(headersTimeout / 4)))
  }
}

/**
 * The Fastify options shared by the server process and the tests. The router learns the API versions
 * from `versionRows`: the same rows the app is registered with (AppOptions.versionRows).
 */
export function serverOptions (config: Config, versionRows: readonly ApiVersionRow[] = API_VERSION_ROWS): FastifyServerOptions & { http: ServerOptions } {
  return {
    logger: {
      level: config.LOG_LEVEL,
      // No pino `redact` paths: redaction replaces whole values at fixed paths, while a query token is
      // part of the URL string. serializeRequest writes no header, query object or body and masks
      // such tokens in the URL; paths would be walked on every line for fields that cannot be there.
      serializers: { req: serializeRequest as never },
      // While a trace is recorded, lines logged within it carry trace_id and span_id.
      mixin: activeTraceLogFields
    },
    logController: new AccessLogController(),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.BODY_LIMIT,
    // Limits (docs/operations.md, "Limits"): Node refuses an oversized head with 431 and a slow request with 408.
    // HANDLER_TIMEOUT is set per route by plugins/handler-timeout.ts.
    http: httpOptions(config),
    requestTimeout: config.REQUEST_TIMEOUT,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT,
    connectionTimeout: config.CONNECTION_TIMEOUT,
    clientErrorHandler,
    // A URL the router cannot decode (400 InvalidUrl) or a path segment over maxParamLength (414 UriTooLong).
    frameworkErrors,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // Opening the embedded database and compiling the schemas of every route can take seconds on a busy machine.
    pluginTimeout: 30_000,
    // Shutdown (plugins/connection-drain.ts): a request that reaches a closing server is still answered,
    // with `Connection: close`, never refused with Fastify's plain 503.
    return503OnClosing: false,
    // Idle connections are closed by plugins/connection-drain.ts once they have rested, never at the
    // moment the server closes, when a client may be sending on one.
    forceCloseConnections: false,
    // API versions: `/api/v2/x` reaches the route declared at `/api/x`, with version 2.0.
    rewriteUrl: rewriteVersionedUrl,
    // find-my-way compiles the route tree into one lookup function once the routes are known.
    routerOptions: { compile: true, constraints: { apiVersion: apiVersionStrategy(buildVersionTable(config, versionRows), config.API_VENDOR_NAME) } },
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false } },
    // `?limit=Infinity` passes Ajv's integer and range checks: every validator also refuses non-finite numbers.
    schemaController: schemaController()
  }
}
