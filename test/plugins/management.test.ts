import t from 'tap'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ConfigError } from '../../src/config.ts'
import { bearer, build, testConfig } from '../helper.ts'
import { eventually } from '../support/eventually.ts'

const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }

/** The management listener's base URL: a real socket, as a scraper reaches it. */
function managementUrl (app: FastifyInstance): string {
  assert.ok(app.management !== null, 'the management listener is on')
  const { port } = app.management.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

/** A raw connection to the management listener, and whether it has been closed. */
async function openTo (t: { teardown: (fn: () => void) => void }, app: FastifyInstance): Promise<{ socket: Socket, closed: () => boolean }> {
  const socket = connect(Number(new URL(managementUrl(app)).port), '127.0.0.1')
  socket.on('error', () => {})
  t.teardown(() => { socket.destroy() })
  let closed = false
  socket.once('close', () => { closed = true })
  await new Promise(resolve => socket.once('connect', resolve))
  return { socket, closed: () => closed }
}

async function whenReady (app: FastifyInstance): Promise<void> {
  await app.storage.whenReady()
  await eventually(async () => {
    const ready = await app.inject('/health/ready')
    assert.equal(ready.statusCode, 200, `waiting for readiness: ${ready.body}`)
  }, { interval: 50 })
}

t.test('off by default: no management listener', async t => {
  const app = await build(t)
  t.equal(app.management, null)
})

t.test('with MANAGEMENT_PORT: metrics, the detailed health and /info without a token, on a listener of its own', async t => {
  const app = await build(t, { env: { MANAGEMENT_PORT: '0', HEALTH_REFRESH_INTERVAL_MS: '200' } })
  await whenReady(app)
  const base = managementUrl(app)

  const metrics = await fetch(`${base}/metrics`)
  t.equal(metrics.status, 200)
  t.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = await metrics.text()
  t.match(text, /health_ready 1/)
  t.match(text, new RegExp(`recrutamento_api_build_info\\{version="${version.replaceAll('.', '\\.')}",revision="[^"]+",nodejs_version="${process.version}"\\} 1`))

  const deep = await fetch(`${base}/health/deep`)
  t.equal(deep.status, 200)
  t.match(await deep.json(), { status: 'Healthy', checks: { database: { status: 'Healthy', critical: true } } })
  t.match(await (await fetch(`${base}/health/dependencies`)).json(), { status: 'Healthy', dependencies: [{ name: String }] })
  t.match(await (await fetch(`${base}/health/database`)).json(), { name: 'database', status: 'Healthy' })
  t.match(await (await fetch(`${base}/health`)).json(), { status: 'Healthy', checks: { database: 'Healthy' } }, '/health with every check, no token needed')
  t.match(await (await fetch(`${base}/health/ready`)).json(), { status: 'Healthy', checks: { database: 'Healthy' } })
  t.equal((await fetch(`${base}/health/live`)).status, 200)

  const info = await fetch(`${base}/info`)
  t.equal(info.status, 200)
  t.equal(info.headers.get('cache-control'), 'no-store')
  const body = await info.json() as { startedAt: string }
  t.match(body, { version, commit: String, runtime: { name: 'node', version: process.version } })
  t.ok(Date.parse(body.startedAt) <= Date.now() && Date.parse(body.startedAt) > Date.now() - 10 * 60_000, `started at ${body.startedAt}`)

  // The service's own port still asks for a token.
  t.equal((await app.inject('/metrics')).statusCode, 401)
  t.equal((await app.inject('/health/deep')).statusCode, 401)
})

t.test('the management listener serves no business route, whatever the request says', async t => {
  const app = await build(t, { env: { MANAGEMENT_PORT: '0' } })
  const base = managementUrl(app)
  const authorization = (await bearer({ scope: 'vagas:read vagas:write' })).authorization
  for (const [method, path] of [['GET', '/api/v2/vagas'], ['GET', '/api/vagas'], ['POST', '/api/v1/vagas'], ['GET', '/vagas'], ['GET', '/docs'], ['POST', '/heartbeats'], ['DELETE', '/metrics']]) {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization, 'x-api-version': '2.0' }, ...(method === 'POST' && { body: '{}', headers: { authorization, 'content-type': 'application/json' } }) })
    t.equal(res.status, 404, `${method} ${path}`)
    t.match(res.headers.get('content-type'), /^application\/problem\+json/)
    t.match(await res.json(), { status: 404, code: 'NotFound' })
  }
  const unknown = await fetch(`${base}/health/nothing-here`)
  t.equal(unknown.status, 404)
  t.match(await unknown.json(), { code: 'NotFound', detail: 'No dependency is named nothing-here.' })
})

t.test('through the drain, the management listener answers and says NotReady', async t => {
  const app = await build(t, { env: { MANAGEMENT_PORT: '0', HEALTH_REFRESH_INTERVAL_MS: '200' } })
  await whenReady(app)
  const base = managementUrl(app)
  app.health.beginShutdown()
  const ready = await fetch(`${base}/health/ready`)
  t.equal(ready.status, 503)
  t.match(await ready.json(), { status: 'NotReady' })
  t.match(await (await fetch(`${base}/metrics`)).text(), /health_ready 0/)
})

t.test('a management port in use stops start-up with one line naming the settings', async t => {
  const taken = createServer()
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { taken.close() })
  const { port } = taken.address() as AddressInfo
  await t.rejects(build(t, { env: { MANAGEMENT_PORT: String(port) } }), new ConfigError(`cannot listen on 127.0.0.1:${port} (MANAGEMENT_HOST, MANAGEMENT_PORT): the port is in use by another process`))
})

t.test('the management port must differ from the service ports', async t => {
  t.throws(() => testConfig({ PORT: '8080', MANAGEMENT_PORT: '8080' }), new ConfigError('MANAGEMENT_PORT=8080 is also PORT: the management listener needs a port of its own'))
  t.throws(() => testConfig({ GRPC_PORT: '9000', MANAGEMENT_PORT: '9000' }), new ConfigError('MANAGEMENT_PORT=9000 is also GRPC_PORT: the management listener needs a port of its own'))
  t.equal(testConfig({ MANAGEMENT_PORT: '9464' }).MANAGEMENT_HOST, '127.0.0.1', 'bound to loopback unless MANAGEMENT_HOST says otherwise')
})

t.test('a connection silent on the management listener is closed after NEW_CONNECTION_TIMEOUT; one that sent a request is not', async t => {
  const app = await build(t, { env: { MANAGEMENT_PORT: '0', NEW_CONNECTION_TIMEOUT: '1000' } })
  const opened = Date.now()
  const silent = await openTo(t, app)
  const spoke = await openTo(t, app)
  spoke.socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')
  const answer = await new Promise<string>(resolve => spoke.socket.once('data', chunk => { resolve(String(chunk)) }))
  t.match(answer, /^HTTP\/1\.1 200 /)
  await eventually(() => { assert.ok(silent.closed(), 'the silent connection is still open') }, { timeout: 15_000, interval: 50 })
  t.ok(Date.now() - opened >= 900, 'not before its time')
  t.notOk(spoke.closed(), 'the connection that sent a request stays open')
})

t.test('a non-loopback MANAGEMENT_HOST logs one warning that the listener serves health details and metrics without a token', async t => {
  const warnings = async (host: string): Promise<string[]> => {
    const lines: Array<{ level: number, msg: string }> = []
    const app = await build(t, { env: { MANAGEMENT_PORT: '0', MANAGEMENT_HOST: host, LOG_LEVEL: 'warn' }, logStream: { write: line => { lines.push(JSON.parse(line)) } } })
    await app.close()
    return lines.filter(line => line.level === 40 && /management/.test(line.msg)).map(line => line.msg)
  }
  const wide = await warnings('0.0.0.0')
  t.equal(wide.length, 1, `one warning: ${JSON.stringify(wide)}`)
  t.match(wide[0], /health details and metrics without a token/)
  t.same(await warnings('127.0.0.1'), [], 'none on loopback')
  t.same(await warnings('localhost'), [], 'none on a name for loopback')
})
