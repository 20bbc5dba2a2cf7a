import t, { type Test } from 'tap'
import { connect, type Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helper.ts'
import { listening } from '../../support/listening.ts'
import { eventually } from '../../support/eventually.ts'
import { startServerProcess } from '../../support/server-process.ts'
import { loadConfig } from '../../../src/config.ts'

const DOCUMENT_REQUEST = 'GET /docs/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'

async function open (port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  return socket
}

async function openConnections (app: FastifyInstance): Promise<number> {
  return await new Promise((resolve, reject) => app.server.getConnections((error, count) => { if (error !== null) reject(error); else resolve(count) }))
}

/** Whether the kernel still holds the connection from this local port as established (Linux, /proc/net/tcp). */
function established (localPort: number): boolean {
  const port = `:${localPort.toString(16).toUpperCase().padStart(4, '0')}`
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').some(line => {
    const [, local, , state] = line.trim().split(/\s+/)
    return local?.endsWith(port) === true && state === '01'
  })
}

/**
 * Writes `count` pipelined document requests in one write and never reads. Resolves once the server
 * has let go of the connection, with the time that took and whether the client is disconnected too:
 * a plain close leaves the client connected behind the answers queued in the kernel, a reset does not.
 */
async function floodWithoutReading (app: FastifyInstance, count: number): Promise<{ closedAfterMs: number, disconnected: boolean }> {
  const socket = await open((app.server.address() as { port: number }).port)
  socket.pause()
  const started = Date.now()
  socket.write(DOCUMENT_REQUEST.repeat(count))
  await eventually(async () => { if (await openConnections(app) > 0) throw new Error('the server holds the connection') }, { timeout: 20_000 })
  const closedAfterMs = Date.now() - started
  const disconnected = await eventually(() => { if (established(socket.localPort!)) throw new Error('still connected') }, { timeout: 5_000 }).then(() => true, () => false)
  socket.destroy()
  return { closedAfterMs, disconnected }
}

function statusLines (text: string): string[] {
  return text.match(/HTTP\/1\.1 \d{3} /g) ?? []
}

t.test('pipelined requests: at most MAX_PIPELINED_REQUESTS are handled at once, the rest wait for earlier answers', async t => {
  let started = 0
  let holding = true
  const release: Array<() => void> = []
  const app = await build(t, {
    env: { MAX_PIPELINED_REQUESTS: '3', HANDLER_TIMEOUT: '0' },
    extraRoutes: scope => {
      scope.get('/held', async () => {
        const n = ++started
        if (holding) await new Promise<void>(resolve => release.push(resolve))
        return { n }
      })
    }
  })
  const socket = await open(await listening(app))
  let text = ''
  socket.on('data', chunk => { text += chunk.toString('latin1') })
  t.teardown(() => { socket.destroy() })
  socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(8))

  await eventually(() => { if (started < 3) throw new Error(`${started} handled`) })
  t.equal(started, 3, 'three requests are handled; five wait')
  release.shift()!()
  await eventually(() => { if (started < 4) throw new Error(`${started} handled`) })
  t.equal(started, 4, 'one answer written lets one more request in')

  holding = false
  release.splice(0).forEach(resolve => { resolve() })
  await eventually(() => { if (statusLines(text).length < 8) throw new Error(`${statusLines(text).length} answers`) })
  t.same(statusLines(text), Array(8).fill('HTTP/1.1 200 '), 'every request is answered')
  t.same([...text.matchAll(/\{"n":(\d+)\}/g)].map(match => Number(match[1])), [1, 2, 3, 4, 5, 6, 7, 8], 'in the order they were sent')
})

t.test('a client that stops reading is reset after CONNECTION_TIMEOUT even with answers queued', async t => {
  // The unsent-bytes rule is out of the way here: only the inactivity timeout can end the connection.
  const app = await build(t, { env: { CONNECTION_TIMEOUT: '1000', RATE_LIMIT_MAX: '0', MAX_UNSENT_BYTES_PER_CONNECTION: '1073741824', UNSENT_DRAIN_TIMEOUT_MS: '600000' } })
  const port = await listening(app)
  const { closedAfterMs, disconnected } = await floodWithoutReading(app, 300)
  t.ok(closedAfterMs >= 1000, `the server ended the connection after ${closedAfterMs} ms`)
  t.ok(disconnected, 'the client is disconnected too')
  t.equal((await fetch(`http://127.0.0.1:${port}/ping`)).status, 200, 'the server still answers')
})

t.test('a client over MAX_UNSENT_BYTES_PER_CONNECTION that does not drain is reset after UNSENT_DRAIN_TIMEOUT_MS', async t => {
  const app = await build(t, { env: { CONNECTION_TIMEOUT: '0', RATE_LIMIT_MAX: '0', MAX_UNSENT_BYTES_PER_CONNECTION: '65536', UNSENT_DRAIN_TIMEOUT_MS: '500' } })
  await listening(app)
  const { closedAfterMs, disconnected } = await floodWithoutReading(app, 300)
  t.ok(closedAfterMs >= 500, `the server ended the connection after ${closedAfterMs} ms`)
  t.ok(disconnected, 'the client is disconnected too')
})

t.test('a client that reads gets every pipelined answer, however far over MAX_UNSENT_BYTES_PER_CONNECTION they go', async t => {
  // Each answer alone is over the limit. The client reads in this process: a drain window a busy
  // machine can hold the whole process past would reset it as if it had stopped reading.
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0', MAX_PIPELINED_REQUESTS: '2', MAX_UNSENT_BYTES_PER_CONNECTION: '65536', UNSENT_DRAIN_TIMEOUT_MS: '5000' } })
  const socket = await open(await listening(app))
  t.teardown(() => { socket.destroy() })
  let text = ''
  socket.on('data', chunk => { text += chunk.toString('latin1') })
  socket.write(DOCUMENT_REQUEST.repeat(50))
  await eventually(() => { if (statusLines(text).length < 50) throw new Error(`${statusLines(text).length} answers`) }, { timeout: 30_000 })
  t.same(statusLines(text), Array(50).fill('HTTP/1.1 200 '))
  t.notOk(socket.destroyed, 'the connection stays open')
})

t.test('connection limit settings have documented defaults and refuse bad values', async t => {
  t.match(loadConfig({}), { MAX_PIPELINED_REQUESTS: 16, MAX_UNSENT_BYTES_PER_CONNECTION: 1048576, UNSENT_DRAIN_TIMEOUT_MS: 10000 })
  t.throws(() => loadConfig({ MAX_PIPELINED_REQUESTS: '0' }), /MAX_PIPELINED_REQUESTS/)
  t.throws(() => loadConfig({ MAX_UNSENT_BYTES_PER_CONNECTION: '100' }), /MAX_UNSENT_BYTES_PER_CONNECTION/)
  t.throws(() => loadConfig({ UNSENT_DRAIN_TIMEOUT_MS: 'soon' }), /UNSENT_DRAIN_TIMEOUT_MS/)
})

/** TLS_CERT_FILE and TLS_KEY_FILE of a self-signed certificate for one test. */
async function tlsSettings (t: Test): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'connection-limits-tls-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' })
  return { TLS_CERT_FILE: cert, TLS_KEY_FILE: key }
}

async function tlsOpen (t: Test, url: string): Promise<TLSSocket> {
  const socket = tlsConnect({ port: Number(new URL(url).port), host: '127.0.0.1', rejectUnauthorized: false })
  socket.on('error', () => {})
  t.teardown(() => { socket.destroy() })
  await new Promise(resolve => socket.once('secureConnect', resolve))
  return socket
}

t.test('over HTTPS too: a client over MAX_UNSENT_BYTES_PER_CONNECTION that does not drain is disconnected', async t => {
  const server = await startServerProcess(t, { ...await tlsSettings(t), CONNECTION_TIMEOUT: '0', RATE_LIMIT_MAX: '0', MAX_UNSENT_BYTES_PER_CONNECTION: '65536', UNSENT_DRAIN_TIMEOUT_MS: '500' })
  const socket = await tlsOpen(t, server.url)
  socket.pause()
  socket.write(DOCUMENT_REQUEST.repeat(300))
  await eventually(() => { if (established(socket.localPort!)) throw new Error('still connected') }, { timeout: 20_000 })
  t.pass('the server reset the connection')
})

t.test('over HTTPS, a connection silent after its handshake is closed after NEW_CONNECTION_TIMEOUT; one that sent a request is not', async t => {
  const server = await startServerProcess(t, { ...await tlsSettings(t), NEW_CONNECTION_TIMEOUT: '1000' })
  const silent = await tlsOpen(t, server.url)
  const speaking = await tlsOpen(t, server.url)
  let answer = ''
  speaking.on('data', chunk => { answer += chunk.toString('latin1') })
  speaking.write('GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n')
  let closed = false
  silent.once('close', () => { closed = true })
  await eventually(() => { if (!closed) throw new Error('the silent connection is still open') }, { timeout: 15_000, interval: 50 })
  t.match(answer, /^HTTP\/1\.1 200 /, 'the other was answered')
  t.notOk(speaking.destroyed, 'and stays open')
})
