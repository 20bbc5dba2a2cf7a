import t from 'tap'
import { mintToken, uniqueRedisPrefix } from '../helper.ts'
import { localServer } from '../local-server.ts'
import { otlpReceiver } from '../support/otlp-receiver.ts'
import { compiledEntry } from '../support/compiled-service.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'
import { freshPostgresDatabase, requireService } from '../support/services.ts'

const SERVER = 2
const CLIENT = 3
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const PARENT_ID = 'b7ad6b7169203331'

t.test('the server started as plain `node src/server`, without a preload, exports over OTLP/HTTP, and shutdown flushes the spans', async t => {
  const databaseUrl = await freshPostgresDatabase(t)
  const redisUrl = requireService(t, 'TEST_REDIS_URL')
  if (databaseUrl === undefined || redisUrl === undefined) return
  const collector = await otlpReceiver(t)
  const server = await startServerProcess(t, {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'recrutamento-api-test',
    // Spans wait in the batch far longer than the test: only the flush at shutdown can deliver them.
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: uniqueRedisPrefix(t, redisUrl, 'otlp-export'),
    // A command past the default limit (a busy machine, a process just started) drops the connection
    // as hung, and the request's Redis work would fall back without a command, so without a span.
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    HEARTBEAT_URL: `${collector.url}/heartbeats`,
    HEARTBEAT_INTERVAL_MS: '600000'
  })
  await untilReady(server.url)

  const token = await mintToken({ scope: 'candidatos:write', sub: 'recrutadora-2' })
  const created = await fetch(`${server.url}/api/v2/candidatos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    body: JSON.stringify({ nome: 'Dora', email: 'dora@example.com' })
  })
  t.equal(created.status, 201, await created.text())
  t.equal((await fetch(`${server.url}/ping`)).status, 200)
  t.same(collector.spans, [], 'nothing exported before shutdown')

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'a clean exit')

  const { spans } = collector
  const request = spans.find(span => span.kind === SERVER && span.name === 'POST /api/candidatos')
  t.ok(request, `the request span arrived (spans: ${spans.map(span => span.name).join(', ')})`)
  t.equal(request?.serviceName, 'recrutamento-api-test', 'named by OTEL_SERVICE_NAME')
  t.equal(request?.traceId, TRACE_ID)
  t.equal(request?.parentSpanId, PARENT_ID, 'under the caller\'s span')
  t.match(request?.attributes, { 'http.route': '/api/candidatos', 'http.response.status_code': 201, 'api.version': '2.0' })

  const inTrace = spans.filter(span => span.traceId === TRACE_ID)
  t.ok(inTrace.some(span => span.kind === CLIENT && span.attributes['db.system.name'] === 'postgresql'), 'database spans in the trace')
  t.ok(inTrace.some(span => span.kind === CLIENT && span.attributes['db.system.name'] === 'redis'), 'Redis spans in the trace')
  t.notOk(spans.some(span => String(span.attributes['url.path']).startsWith('/ping') || String(span.attributes['url.path']).startsWith('/health')), 'no probe span')

  const signals = collector.otherRequests.map(request => request.url).filter(url => url?.startsWith('/v1/'))
  t.same(signals, [], 'traces only: no OTLP metrics or logs pushed')

  const heartbeat = collector.otherRequests.find(request => request.url === '/heartbeats')
  const heartbeatTrace = String(heartbeat?.headers.traceparent).split('-')[1]
  t.ok(spans.some(span => span.kind === CLIENT && span.traceId === heartbeatTrace), 'the heartbeat carried the trace of its client span')

  const access = server.output().split('\n').filter(line => line.includes('"request completed"')).map(line => JSON.parse(line) as Record<string, unknown>)
    .find(line => (line.req as { url: string }).url === '/api/v2/candidatos')
  t.equal(access?.trace_id, TRACE_ID, 'the access line names the trace')
  t.equal(access?.span_id, request?.spanId, 'and the request span')
})

t.test('a collector that never answers cannot hold shutdown past SHUTDOWN_TIMEOUT_MS', async t => {
  const databaseUrl = await freshPostgresDatabase(t)
  if (databaseUrl === undefined) return
  const silent = await localServer(t, () => new Promise<void>(() => {}))
  const server = await startServerProcess(t, {
    OTEL_EXPORTER_OTLP_ENDPOINT: silent.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    // The exporter would wait a minute for an answer; shutdown allows 5 s for everything.
    OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
    SHUTDOWN_TIMEOUT_MS: '5000',
    DATABASE_URL: databaseUrl
  }, ['--import', await compiledEntry('src/tracing/preload.js')])
  t.equal((await fetch(`${server.url}/api/v2/vagas`)).status, 401, 'a traced request, its span buffered')

  server.child.kill('SIGTERM')
  // Past the bound close-with-grace would end the process with 1; the flush gives up in time instead.
  t.equal(await server.exited, 0, 'exits 0 within the bound')
  t.ok(silent.hits >= 1, 'the flush was attempted')
  t.match(server.output(), /"msg":"shut down"/)
})
