import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node'
import { register as registerLoaderHooks } from 'import-in-the-middle/register-hooks.mjs'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc'
import { RecordedIORedisInstrumentation, RecordedPgInstrumentation } from './recorded-client-spans.ts'
import { clientSpansOnlyWhenRecorded, hookSpansWanted, signalsBesideTraces } from './settings.ts'
import { onTracingStop } from './shutdown.ts'
import { startRequestSpan } from './request-span.ts'

const SERVICE_NAME = 'recrutamento-api'

/** The modules the instrumentations patch: the ESM loader hook intercepts these and nothing else. */
const INSTRUMENTED_MODULES = ['pg', 'pg-pool', 'ioredis', '@grpc/grpc-js']

/**
 * Has the ESM loader hook (import-in-the-middle, in the importing thread through
 * `module.registerHooks`) intercept the instrumented modules, so that their ESM imports are patched
 * too. Call it, then startTracing, before anything imports them.
 */
export function interceptInstrumentedModules (): void {
  registerLoaderHooks({ include: INSTRUMENTED_MODULES })
}

/**
 * Starts the OpenTelemetry SDK: the request span from @fastify/otel (it registers itself on every
 * Fastify instance made from now on), client spans for PostgreSQL and Redis, spans and W3C trace
 * context for outgoing fetch calls (introspection, JWKS, heartbeats) and for gRPC health calls.
 * The exporter, sampler and resource come from the standard OTEL_* variables.
 */
export function startTracing (options: Partial<NodeSDKConfiguration> = {}): NodeSDK {
  const hookSpans = hookSpansWanted(process.env)
  const recordedOnly = clientSpansOnlyWhenRecorded(process.env)
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME, when set, names the service; the SDK prefers an explicit name, so give one only without it.
    serviceName: process.env.OTEL_SERVICE_NAME === undefined ? SERVICE_NAME : undefined,
    instrumentations: [
      // A span per hook and for the handler only with TRACE_HOOKS=true: each wraps its function in a
      // span and a context switch on every request, sampled or not, and made most of a sampled trace's
      // export; without them the client spans hang from the request span (docs/operations.md "Cost").
      new FastifyOtelInstrumentation({ registerOnInitialization: true, instrumentHooks: hookSpans, instrumentHandler: hookSpans, requestHook: startRequestSpan }),
      // Health checks poll the database and Redis in the background: only calls made for a traced
      // request become spans. Bound values are never recorded (enhancedDatabaseReporting is off).
      // No span for taking a pooled connection: every query takes one, so it would double the
      // database spans a sampled trace exports; a wait for the pool shows as the gap before the query.
      // Client spans only under a recorded request span (src/tracing/recorded-client-spans.ts).
      new (recordedOnly ? RecordedPgInstrumentation : PgInstrumentation)({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      new (recordedOnly ? RecordedIORedisInstrumentation : IORedisInstrumentation)({ requireParentSpan: true }),
      new UndiciInstrumentation(),
      new GrpcInstrumentation()
    ],
    ...signalsBesideTraces(process.env),
    ...options
  })
  sdk.start()
  onTracingStop(async () => { await sdk.shutdown() })
  return sdk
}
