/**
 * Tracing is on only when an OTLP endpoint is named (the general or the traces one) and the standard
 * OTEL_SDK_DISABLED switch is not true. Off, the SDK is never loaded: the service pays nothing for it.
 * Every other OTEL_* variable (protocol, service name, sampler, headers) is read by the SDK itself.
 */
export function tracingWanted (env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT
  return endpoint !== undefined && endpoint.trim() !== '' && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true'
}

/**
 * Left to its defaults, the SDK would also push OTLP metrics and logs. The service's metrics are on
 * /metrics and its logs on stdout; the SDK's would only add a histogram recorded on every database
 * and HTTP client call. So traces only, unless OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER asks for more.
 */
export function signalsBesideTraces (env: Record<string, string | undefined>): { metricReaders?: [], logRecordProcessors?: [] } {
  return {
    ...(sdkMetricsWanted(env) ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER === undefined ? { logRecordProcessors: [] } : {})
  }
}

/** Whether the SDK's own metrics pipeline is left on: only when OTEL_METRICS_EXPORTER is set, for the SDK to read. */
export function sdkMetricsWanted (env: Record<string, string | undefined>): boolean {
  return env.OTEL_METRICS_EXPORTER !== undefined
}

/**
 * Whether PostgreSQL and Redis client spans are made only under a recorded span
 * (src/tracing/recorded-client-spans.ts). Not with the SDK's metrics: pg's instrumentation records
 * there the duration of every query, under a recorded span or not, and must see them all.
 */
export function clientSpansOnlyWhenRecorded (env: Record<string, string | undefined>): boolean {
  return !sdkMetricsWanted(env) || env.OTEL_METRICS_EXPORTER?.trim().toLowerCase() === 'none'
}

/**
 * @fastify/otel's span for each hook and for the handler shows where a slow request spent its time,
 * but costs every request, sampled or not (docs/benchmarks.md "Tracing"): on only with TRACE_HOOKS=true.
 */
export function hookSpansWanted (env: Record<string, string | undefined>): boolean {
  return env.TRACE_HOOKS?.trim().toLowerCase() === 'true'
}
