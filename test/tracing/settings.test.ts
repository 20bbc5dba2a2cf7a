import t from 'tap'
import { clientSpansOnlyWhenRecorded, hookSpansWanted, signalsBesideTraces, tracingWanted } from '../../src/tracing/settings.ts'

t.test('tracing is on only with an OTLP endpoint, and OTEL_SDK_DISABLED=true turns it off', async t => {
  t.equal(tracingWanted({}), false, 'off by default')
  t.equal(tracingWanted({ OTEL_SERVICE_NAME: 'api', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }), false, 'configured without an endpoint: off')
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false, 'an empty endpoint is unset')
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true)
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true, 'the traces endpoint alone')
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }), false, 'disabled wins')
  t.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }), true)
})

t.test('traces only: the SDK pushes metrics or logs only when OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER asks', async t => {
  t.same(signalsBesideTraces({}), { metricReaders: [], logRecordProcessors: [] }, 'by default neither')
  t.same(signalsBesideTraces({ OTEL_METRICS_EXPORTER: 'otlp' }), { logRecordProcessors: [] }, 'metrics as asked, the SDK reads the variable')
  t.same(signalsBesideTraces({ OTEL_LOGS_EXPORTER: 'otlp' }), { metricReaders: [] }, 'logs as asked')
})

t.test('client spans only under a recorded span, unless the SDK exports metrics, which count every call', async t => {
  t.equal(clientSpansOnlyWhenRecorded({}), true, 'by default')
  t.equal(clientSpansOnlyWhenRecorded({ OTEL_METRICS_EXPORTER: ' None ' }), true, 'no metrics exporter named')
  t.equal(clientSpansOnlyWhenRecorded({ OTEL_METRICS_EXPORTER: 'otlp' }), false, 'pg records every query\'s duration')
  t.equal(clientSpansOnlyWhenRecorded({ OTEL_METRICS_EXPORTER: 'prometheus' }), false)
})

t.test('hook and handler spans only with TRACE_HOOKS=true', async t => {
  t.equal(hookSpansWanted({}), false, 'off by default')
  t.equal(hookSpansWanted({ TRACE_HOOKS: 'false' }), false)
  t.equal(hookSpansWanted({ TRACE_HOOKS: ' TRUE ' }), true)
})
