import t from 'tap'
import { interceptInstrumentedModules, startTracing } from '../../src/tracing/sdk.ts'
import { flushTraces } from '../../src/tracing/shutdown.ts'
import { spanRecorder } from '../support/span-recorder.ts'

// TRACE_HOOKS is read when the SDK starts, as the preload reads it for the server.
process.env.TRACE_HOOKS = 'true'
interceptInstrumentedModules()
const recorder = spanRecorder()
startTracing({ spanProcessors: [recorder.processor] })
t.teardown(() => flushTraces(5_000))

const { build } = await import('../helper.ts')

t.test('TRACE_HOOKS=true: a span for each hook and for the handler, in the request\'s trace', async t => {
  const app = await build(t, {
    extraRoutes: scope => { scope.get('/api/hooked', { config: { apiVersionNeutral: true } }, async () => ({ ok: true })) }
  })
  const res = await app.inject({ url: '/api/hooked' })
  t.equal(res.statusCode, 200)
  const spans = (await recorder.finished())
  const server = spans.find(span => span.attributes['http.route'] === '/api/hooked')
  t.ok(server, `the request span: ${spans.map(span => span.name).join(', ')}`)
  const hooked = spans.filter(span => span.attributes['hook.name'] !== undefined)
  t.ok(hooked.some(span => span.name.startsWith('handler - ')), 'a span for the handler')
  t.ok(hooked.some(span => span.name.startsWith('onRequest - ')), 'a span for an onRequest hook')
  const inTrace = new Set(spans.filter(span => span.spanContext().traceId === server?.spanContext().traceId).map(span => span.spanContext().spanId))
  t.ok(hooked.every(span => inTrace.has(span.spanContext().spanId)), 'every hook span is in the request\'s trace')
  t.ok(hooked.every(span => inTrace.has(span.parentSpanContext?.spanId ?? '')), 'every hook span has its parent in that trace')
})
