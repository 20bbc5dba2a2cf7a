import t from 'tap'
import { randomBytes } from 'node:crypto'
import { context, ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'
import { interceptInstrumentedModules } from '../../src/tracing/sdk.ts'
import { RecordedIORedisInstrumentation, RecordedPgInstrumentation } from '../../src/tracing/recorded-client-spans.ts'
import { spanRecorder } from '../support/span-recorder.ts'

// The SDK patches pg and ioredis before they are imported, as src/tracing/preload.ts does for the server.
// Each instrumentation's requestHook runs when it traces a call: it counts the calls traced.
interceptInstrumentedModules()
const recorder = spanRecorder()
const traced = { pg: 0, redis: 0 }
const sdk = new NodeSDK({
  spanProcessors: [recorder.processor],
  metricReaders: [],
  logRecordProcessors: [],
  instrumentations: [
    new RecordedPgInstrumentation({ requireParentSpan: true, requestHook: () => { traced.pg++ } }),
    new RecordedIORedisInstrumentation({ requireParentSpan: true, requestHook: () => { traced.redis++ } })
  ]
})
sdk.start()
t.teardown(() => sdk.shutdown())

const { default: pg } = await import('pg')
const { Redis } = await import('ioredis')
const { requireService } = await import('../support/services.ts')

const tracer = trace.getTracer('test')
const newId = (bytes: number) => randomBytes(bytes).toString('hex')

/** A request's context as the SDK makes it under a caller's traceparent: its span records only if the caller sampled. */
function requestContext (sampled: boolean): Context {
  const caller = trace.setSpanContext(ROOT_CONTEXT, { traceId: newId(16), spanId: newId(8), traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true })
  return trace.setSpan(caller, tracer.startSpan('request', {}, caller))
}

t.beforeEach(() => {
  recorder.reset()
  traced.pg = 0
  traced.redis = 0
})

t.test('PostgreSQL: a query under a recorded span is traced; under an unsampled one it runs untouched', async t => {
  const url = requireService(t, 'TEST_DATABASE_URL')
  if (url === undefined) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())

  const sampled = requestContext(true)
  const answer = await context.with(sampled, () => client.query('select 1 as one'))
  t.same(answer.rows, [{ one: 1 }])
  t.equal(traced.pg, 1, 'the instrumentation traced the query')
  const spans = (await recorder.finished())
  t.equal(spans.length, 1, 'one client span')
  t.equal(spans[0]?.parentSpanContext?.spanId, trace.getSpan(sampled)?.spanContext().spanId, 'under the request span')

  recorder.reset()
  const unsampled = await context.with(requestContext(false), () => client.query('select 2 as two'))
  t.same(unsampled.rows, [{ two: 2 }], 'the query answers as before')
  t.equal(traced.pg, 1, 'the instrumentation did not run: its span could never be recorded')
  t.same((await recorder.finished()), [])

  await client.query('select 3')
  t.equal(traced.pg, 1, 'nor without any span')
})

t.test('Redis: a command under a recorded span is traced; under an unsampled one it runs untouched', async t => {
  const url = requireService(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const redis = new Redis(url, { lazyConnect: true })
  await redis.connect()
  t.teardown(() => redis.quit())
  const key = `test:recorded-client-spans:${newId(6)}`
  t.teardown(() => redis.del(key))

  await context.with(requestContext(true), () => redis.set(key, 'one'))
  t.equal(traced.redis, 1, 'the instrumentation traced the command')
  t.equal((await recorder.finished()).length, 1, 'one client span')

  recorder.reset()
  const value = await context.with(requestContext(false), () => redis.get(key))
  t.equal(value, 'one', 'the command answers as before')
  t.equal(traced.redis, 1, 'the instrumentation did not run')
  t.same((await recorder.finished()), [])
})
