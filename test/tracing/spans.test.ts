import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { context, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api'
import type { IncomingHttpHeaders } from 'node:http'
import { exportJWK, generateKeyPair } from 'jose'
import { tracing } from '@opentelemetry/sdk-node'
import { interceptInstrumentedModules, startTracing } from '../../src/tracing/sdk.ts'
import { flushTraces } from '../../src/tracing/shutdown.ts'
import { spanRecorder } from '../support/span-recorder.ts'

// As src/tracing/preload.ts does for the server: the SDK starts before the app (and so pg) is imported.
interceptInstrumentedModules()
const recorder = spanRecorder()
startTracing({ spanProcessors: [recorder.processor] })
t.teardown(() => flushTraces(5_000))

const { ALL_SCOPES, bearer, build, mintToken } = await import('../helper.ts')
const { freshPostgresDatabase } = await import('../support/services.ts')
const { localServer, sendJson } = await import('../local-server.ts')
const { eventually } = await import('../support/eventually.ts')
const grpc = await import('@grpc/grpc-js')
const { service: healthService } = await import('grpc-health-check')

type ReadableSpan = tracing.ReadableSpan
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

/** Waits until the instance is ready (readiness answers 200), so API requests are served. */
async function serving (app: Awaited<ReturnType<typeof build>>): Promise<void> {
  await eventually(async () => {
    const ready = await app.inject({ url: '/health/ready' })
    if (ready.statusCode !== 200) throw new Error(`readiness: ${ready.body}`)
  }, { timeout: 30_000 })
}

/** The app on a fresh PostgreSQL database (pg is the driver the instrumentation sees), with its log lines. */
async function tracedApp (t: Test) {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return undefined
  const lines: string[] = []
  const app = await build(t, {
    env: { DATABASE_URL: url, LOG_LEVEL: 'info' },
    logStream: { write: line => { lines.push(line) } },
    extraRoutes: scope => { scope.get('/api/failing', { config: { apiVersionNeutral: true, scopes: ['candidatos:read'] } }, async () => { throw new Error('the disk is on fire') }) }
  })
  await serving(app)
  return { app, logs: () => lines.map(line => JSON.parse(line) as Record<string, unknown>) }
}

t.beforeEach(() => { recorder.reset() })

t.test('a candidato action: one trace, the server span under the caller\'s traceparent, its database spans', async t => {
  const traced = await tracedApp(t)
  if (traced === undefined) return
  const { app, logs } = traced
  const token = await mintToken({ scope: ALL_SCOPES, sub: 'recrutadora-1' })
  const auth = { authorization: `Bearer ${token}` }
  const vaga = (await app.inject({ method: 'POST', url: '/api/v2/vagas', headers: auth, payload: { titulo: 'Vaga secreta', status: 'aberta' } })).json() as { id: string }
  const candidato = (await app.inject({ method: 'POST', url: '/api/v2/candidatos', headers: auth, payload: { nome: 'Caio', email: 'caio.privado@example.com' } })).json() as { id: string }
  recorder.reset()

  const res = await app.inject({
    method: 'POST',
    url: `/api/v2/candidatos/${candidato.id}/candidatar`,
    headers: { ...auth, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'gateway=1' },
    payload: { vagaId: vaga.id }
  })
  t.equal(res.statusCode, 200, res.body)

  const spans = (await recorder.finished())
  t.same([...new Set(spans.map(span => span.spanContext().traceId))], [TRACE_ID], 'every span belongs to the caller\'s trace')
  const servers = spans.filter(span => span.kind === SpanKind.SERVER)
  t.equal(servers.length, 1, 'one server span')
  const server = servers[0]!
  t.equal(server.name, 'POST /api/candidatos/:id/candidatar', 'named by method and route pattern')
  t.equal(parentOf(server), PARENT_ID, 'the parent is the incoming traceparent')
  t.equal(server.spanContext().traceState?.get('gateway'), '1', 'tracestate is kept')
  t.match(server.attributes, {
    'http.request.method': 'POST',
    'http.route': '/api/candidatos/:id/candidatar',
    'http.response.status_code': 200,
    'url.path': `/api/v2/candidatos/${candidato.id}/candidatar`,
    'url.scheme': 'http',
    'client.address': '127.0.0.1',
    'network.protocol.version': '1.1',
    'user_agent.original': 'lightMyRequest',
    'api.version': '2.0',
    'enduser.pseudo.id': createHash('sha256').update('recrutadora-1').digest('base64url')
  })

  // A span per hook and for the handler would cost every request, sampled or not (docs/operations.md "Cost").
  t.same(spans.filter(span => span.attributes['hook.name'] !== undefined).map(span => span.name), [], 'no hook or handler spans')

  const database = spans.filter(span => span.kind === SpanKind.CLIENT && span.attributes['db.system.name'] === 'postgresql')
  t.ok(database.length > 0, `database spans: ${database.map(span => span.name).join(', ')}`)
  const byId = new Map(spans.map(span => [span.spanContext().spanId, span]))
  for (const span of database) {
    let ancestor: ReadableSpan | undefined = span
    while (ancestor !== undefined && ancestor !== server) ancestor = byId.get(parentOf(ancestor) ?? '')
    t.equal(ancestor, server, `${span.name} lies under the server span`)
  }
  // Every database span is a statement: taking a pooled connection makes none (docs/operations.md "What spans to expect").
  t.same(database.filter(span => typeof span.attributes['db.query.text'] !== 'string').map(span => span.name), [], 'no connection spans')
  // The statement (db.statement, named db.query.text in the current database conventions) keeps its placeholders.
  const statements = database.map(span => span.attributes['db.query.text']).filter(text => typeof text === 'string')
  t.ok(statements.some(text => text.includes('$1')), 'the statements are parameterized')
  for (const value of [candidato.id, vaga.id, 'caio.privado@example.com']) {
    t.notOk(statements.some(text => text.includes(value)), `no statement holds the bound value ${value}`)
  }

  const everything = JSON.stringify(spans.map(span => [span.name, span.attributes, span.events]))
  t.notOk(everything.includes(token), 'the token appears in no span')
  t.notOk(everything.includes('recrutadora-1'), 'nor the subject in clear')

  const access = logs().find(line => line.msg === 'request completed' && (line.req as { url: string }).url.endsWith('/candidatar'))
  t.equal(access?.trace_id, TRACE_ID, 'the access line carries the trace id')
  t.equal(access?.span_id, server.spanContext().spanId, 'and the server span id')
})

t.test('probes and /ping make no spans', async t => {
  const traced = await tracedApp(t)
  if (traced === undefined) return
  for (const url of ['/ping', '/health/live', '/health/ready', '/health/startup', '/health/shallow']) {
    const res = await traced.app.inject({ url, headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } })
    t.ok(res.statusCode < 600, `${url} answered ${res.statusCode}`)
  }
  t.same((await recorder.finished()).map(span => span.name), [], 'no span at all')
})

t.test('an error answer: the span records the problem code; access and error lines carry the trace', async t => {
  const traced = await tracedApp(t)
  if (traced === undefined) return
  const { app, logs } = traced
  const auth = await bearer({ scope: ALL_SCOPES })

  const missing = await app.inject({ method: 'POST', url: '/api/v2/candidatos/00000000-0000-4000-8000-000000000000/aprovar', headers: auth })
  t.equal(missing.statusCode, 404)
  const refused = (await recorder.finished()).find(span => span.kind === SpanKind.SERVER)
  t.equal(refused?.attributes['problem.code'], 'NotFound')
  t.equal(refused?.attributes['error.type'], undefined, 'a client error is not the server\'s failure')
  recorder.reset()

  const failed = await app.inject({ url: '/api/failing', headers: auth })
  t.equal(failed.statusCode, 500)
  const server = (await recorder.finished()).find(span => span.kind === SpanKind.SERVER)
  t.equal(server?.name, 'GET /api/failing')
  t.equal(server?.attributes['error.type'], 'InternalError', 'the problem code names the failure')
  t.equal(server?.status.code, SpanStatusCode.ERROR)
  t.ok(server?.events.some(event => event.name === 'exception'), 'the exception is recorded')

  const traceId = server?.spanContext().traceId
  const errorLine = logs().find(line => line.msg === 'request failed')
  t.equal(errorLine?.trace_id, traceId, 'the error line carries the trace id')
  t.match(errorLine?.span_id, /^[0-9a-f]{16}$/)
  const access = logs().find(line => line.msg === 'request completed' && (line.req as { url: string }).url === '/api/failing')
  t.equal(access?.trace_id, traceId)
  t.equal(access?.span_id, server?.spanContext().spanId)
})

t.test('outgoing calls made for a request carry its trace: introspection and JWKS', async t => {
  const seen: Array<{ url: string | undefined, headers: IncomingHttpHeaders }> = []
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const authServer = await localServer(t, async (req, _body, res) => {
    seen.push({ url: req.url, headers: req.headers })
    if (req.url === '/jwks') return sendJson(res, 200, { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', use: 'sig', alg: 'RS256' }] })
    sendJson(res, 200, { active: true, scope: 'candidatos:read', sub: 'ana', exp: Math.floor(Date.now() / 1000) + 600 })
  })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${authServer.url}/jwks`, AUTH_INTROSPECTION_URL: `${authServer.url}/introspect` } })
  await serving(app)
  const caller = (traceId: string) => ({ traceparent: `00-${traceId}-${PARENT_ID}-01` })

  const viaJwks = await app.inject({
    url: '/api/v2/candidatos',
    headers: { ...caller(TRACE_ID), authorization: `Bearer ${await mintToken({ scope: 'candidatos:read', alg: 'RS256', key: privateKey, header: { kid: 'k1' } })}` }
  })
  t.equal(viaJwks.statusCode, 200, viaJwks.body)
  const otherTrace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
  const viaIntrospection = await app.inject({ url: '/api/v2/candidatos', headers: { ...caller(otherTrace), authorization: 'Bearer opaque-token-1' } })
  t.equal(viaIntrospection.statusCode, 200, viaIntrospection.body)

  const traceOf = (path: string) => String(seen.find(request => request.url === path)?.headers.traceparent).split('-')[1]
  t.equal(traceOf('/jwks'), TRACE_ID, 'the JWKS fetch carries the request\'s trace')
  t.equal(traceOf('/introspect'), otherTrace, 'the introspection call carries the request\'s trace')
  const clients = (await recorder.finished()).filter(span => span.kind === SpanKind.CLIENT && span.attributes['url.full'] !== undefined)
  t.same(clients.map(span => span.spanContext().traceId).sort(), [otherTrace, TRACE_ID].sort(), 'each call is a client span in its trace')
  t.notOk(JSON.stringify(clients.map(span => span.attributes)).includes('opaque-token-1'), 'the token is in no span')
})

interface HealthClient extends InstanceType<ReturnType<typeof grpc.makeClientConstructor>> {
  check: (request: { service: string }, metadata: InstanceType<typeof grpc.Metadata>, callback: (error: unknown, response?: { status: string }) => void) => void
  watch: (request: { service: string }, metadata: InstanceType<typeof grpc.Metadata>) => NodeJS.EventEmitter & { cancel: () => void }
}

t.test('gRPC health Check and Watch are traced like HTTP, under the caller\'s traceparent', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0' } })
  const Client = grpc.makeClientConstructor(healthService, 'grpc.health.v1.Health')
  const client = new Client(`127.0.0.1:${app.grpcHealthPort}`, grpc.credentials.createInsecure()) as HealthClient
  t.teardown(() => client.close())
  // The caller is traced too: its gRPC client, instrumented in this process, sends its own span as the
  // traceparent, in the trace it was called in.
  const caller = trace.setSpanContext(context.active(), { traceId: TRACE_ID, spanId: PARENT_ID, traceFlags: TraceFlags.SAMPLED, isRemote: true })

  await new Promise(resolve => context.with(caller, () => client.check({ service: '' }, new grpc.Metadata(), resolve)))
  const stream = context.with(caller, () => client.watch({ service: '' }, new grpc.Metadata()))
  stream.on('error', () => {})
  await new Promise(resolve => stream.once('data', resolve))
  // A Watch lasts as long as its stream: its span ends when the client cancels it.
  stream.cancel()

  for (const method of ['Check', 'Watch']) {
    const [clientSpan, serverSpan] = await eventually(async () => {
      const spans = (await recorder.finished()).filter(span => span.name.endsWith(`grpc.health.v1.Health/${method}`))
      const pair = [SpanKind.CLIENT, SpanKind.SERVER].map(kind => spans.find(span => span.kind === kind))
      if (pair.includes(undefined)) throw new Error(`no client and server spans for ${method}`)
      return pair as [ReadableSpan, ReadableSpan]
    })
    t.equal(clientSpan.spanContext().traceId, TRACE_ID, `${method}: the caller's client span is in its trace`)
    t.equal(parentOf(clientSpan), PARENT_ID, `${method}: under the span it was called in`)
    t.equal(serverSpan.spanContext().traceId, TRACE_ID, `${method}: a server span in the caller's trace`)
    t.equal(parentOf(serverSpan), clientSpan.spanContext().spanId, `${method}: its parent is the caller's span`)
    t.equal(serverSpan.attributes['rpc.system'], 'grpc')
  }
})
