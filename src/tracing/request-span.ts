import { createHash } from 'node:crypto'
import { trace, TraceFlags, type Span, type SpanContext } from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'
import type { Principal } from '../auth/principal.ts'

/**
 * The request span's name and HTTP attributes (OpenTelemetry HTTP server conventions). The name is the
 * method and the route pattern, never the URL; `url.path` drops the query, which may carry a token.
 */
function describeRequest (span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`)
  const url = request.originalUrl
  const query = url.indexOf('?')
  span.setAttributes({
    'url.path': query === -1 ? url : url.slice(0, query),
    'url.scheme': request.protocol,
    'client.address': request.ip,
    'network.protocol.version': request.raw.httpVersion
  })
  const userAgent = request.headers['user-agent']
  if (userAgent !== undefined) span.setAttribute('user_agent.original', userAgent)
  if (request.apiVersion !== undefined) span.setAttribute('api.version', request.apiVersion)
}

/**
 * @fastify/otel's `requestHook`, called as it starts a request span: a recorded span is described
 * and its ids kept for the access line. An unsampled request's span is left alone.
 */
export function startRequestSpan (span: Span, request: FastifyRequest): void {
  if (!span.isRecording()) return
  describeRequest(span, request)
  request.traceContext = span.spanContext()
}

/** A pseudonymous id for a token's subject: the same subject always maps to it; the token never appears. */
function subjectHash (subject: string): string {
  return createHash('sha256').update(subject).digest('base64url')
}

// The token verifier hands out one principal per cached token, so a client's sampled requests hash
// its subject once rather than once per sampled request (docs/benchmarks.md, "Tracing").
const principalHashes = new WeakMap<Principal, string>()

/** subjectHash of a principal's subject, if it names one, remembered for as long as the principal lives. */
export function principalSubjectHash (principal: Principal): string | undefined {
  if (principal.sub === undefined) return undefined
  let hash = principalHashes.get(principal)
  if (hash === undefined) {
    hash = subjectHash(principal.sub)
    principalHashes.set(principal, hash)
  }
  return hash
}

/** The machine-readable `code` of a problem answer's body, if it has one. */
export function problemCode (payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code
    return typeof code === 'string' ? code : undefined
  } catch {
    return undefined
  }
}

type TraceLogFields = { trace_id: string, span_id: string } | Record<string, never>
const NO_TRACE: TraceLogFields = Object.freeze({})

/** `trace_id` and `span_id` for a log line, from a recorded span's context; none without one. */
export function traceLogFields (context: SpanContext | null | undefined): TraceLogFields {
  return context == null ? NO_TRACE : { trace_id: context.traceId, span_id: context.spanId }
}

/**
 * pino's `mixin`: every line logged while a recorded span is active (an error logged by a handler,
 * a hook or the error handler) carries its trace and span ids.
 */
export function activeTraceLogFields (): TraceLogFields {
  const context = trace.getActiveSpan()?.spanContext()
  // A new object every time: pino merges the line's own fields into it. The span may have ended
  // (an error is logged after the handler's span closed): its sampled flag still says it is recorded.
  return context === undefined || (context.traceFlags & TraceFlags.SAMPLED) === 0 ? {} : traceLogFields(context)
}
