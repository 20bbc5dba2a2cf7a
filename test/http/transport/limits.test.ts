import t from 'tap'
import { connect, type Socket } from 'node:net'
import { build } from '../../helper.ts'
import { listening } from '../../support/listening.ts'
import { loadConfig } from '../../../src/config.ts'

interface RawExchange { text: string, closedAfterMs: number }

/** Writes raw bytes on a fresh connection and collects everything until the server closes it. */
async function rawExchange (port: number, send: (socket: Socket) => void, giveUpMs = 15_000): Promise<RawExchange> {
  const socket = connect(port, '127.0.0.1')
  await new Promise(resolve => socket.once('connect', resolve))
  const started = Date.now()
  let text = ''
  socket.on('data', chunk => { text += chunk.toString('latin1') })
  socket.on('error', () => {})
  const timer = setTimeout(() => socket.destroy(), giveUpMs)
  send(socket)
  await new Promise(resolve => socket.once('close', resolve))
  clearTimeout(timer)
  return { text, closedAfterMs: Date.now() - started }
}

function bodyOf (text: string): Record<string, unknown> {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
}

t.test('a request head larger than HEADER_LIMIT answers 431 problem+json', async t => {
  const app = await build(t, { env: { HEADER_LIMIT: '2048' } })
  const port = await listening(app)
  const small = await fetch(`http://127.0.0.1:${port}/ping`, { headers: { 'x-padding': 'a'.repeat(1000) } })
  t.equal(small.status, 200, 'a head under the limit passes')
  const { text } = await rawExchange(port, socket => {
    socket.write(`GET /ping HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(4096)}\r\n\r\n`)
  })
  t.match(text, /^HTTP\/1\.1 431 /)
  t.match(text, /content-type: application\/problem\+json/i)
  t.match(bodyOf(text), { status: 431, code: 'HeadersTooLarge' })
})

t.test('a request that is not valid HTTP answers 400 problem+json and the connection closes', async t => {
  const app = await build(t)
  const port = await listening(app)
  const { text } = await rawExchange(port, socket => { socket.write('GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n') })
  t.match(text, /^HTTP\/1\.1 400 /)
  t.match(bodyOf(text), { status: 400, code: 'MalformedRequest' })
  t.notMatch(text, /HPE_|Error:/, 'the parser error stays in the server')
})

t.test('a request Node refuses carries the headers of every other error: x-request-id (the body\'s requestId) and no-store', async t => {
  const app = await build(t, { env: { HEADER_LIMIT: '2048' } })
  const port = await listening(app)
  const refusals = [
    `GET /ping HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(4096)}\r\n\r\n`,
    'GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'
  ]
  for (const raw of refusals) {
    const { text } = await rawExchange(port, socket => { socket.write(raw) })
    const head = text.slice(0, text.indexOf('\r\n\r\n'))
    const requestId = /^x-request-id: (.+)$/im.exec(head)?.[1]
    t.equal(requestId, bodyOf(text).requestId, `${head.split('\r\n')[0]}: x-request-id is the body's requestId`)
    t.match(head, /^cache-control: no-store$/im)
  }
})

t.test('a handler that outlives HANDLER_TIMEOUT answers 503 problem with the configured Retry-After', async t => {
  const app = await build(t, {
    env: { HANDLER_TIMEOUT: '200', RETRY_AFTER_SECONDS: '8' },
    extraRoutes: scope => {
      // Never finishes by itself: only the timeout can answer.
      scope.get('/slow', async () => { await new Promise(() => {}) })
      scope.get('/quick', async () => ({ quick: true }))
      // A failure that says only "unavailable" (a library's 503): the answer still says when to come back.
      scope.get('/unavailable', async () => { throw Object.assign(new Error('upstream unavailable'), { statusCode: 503 }) })
    }
  })
  const started = Date.now()
  const slow = await app.inject({ method: 'GET', url: '/slow' })
  const elapsed = Date.now() - started
  t.equal(slow.statusCode, 503)
  t.ok(elapsed >= 150, `answered after ${elapsed} ms, once the limit had passed`)
  t.match(slow.headers['content-type'], /^application\/problem\+json/)
  t.equal(slow.headers['retry-after'], '8', 'RETRY_AFTER_SECONDS')
  t.match(slow.json(), { status: 503, code: 'HandlerTimeout' })
  t.notMatch(slow.body, /FST_|timed out after|on route/, 'the body does not carry the framework\'s message')
  t.equal((await app.inject({ method: 'GET', url: '/quick' })).statusCode, 200, 'quick handlers are untouched')

  const unavailable = await app.inject({ method: 'GET', url: '/unavailable' })
  t.match(unavailable.json(), { status: 503, code: 'ServiceUnavailable', detail: /try again shortly/ })
  t.equal(unavailable.headers['retry-after'], '8', 'a 503 that says "try again" says when')
  t.notMatch(unavailable.body, /upstream/, 'the cause stays in the log')
})

t.test('a route declaring handlerTimer: false gets no handler timer; every other route does', async t => {
  const app = await build(t, {
    env: { HANDLER_TIMEOUT: '100' },
    extraRoutes: scope => {
      // Slow on purpose, past HANDLER_TIMEOUT: the behaviour under test.
      const late = async () => { await new Promise(resolve => setTimeout(resolve, 300)); return { late: true } }
      scope.get('/untimed-but-late', { config: { handlerTimer: false } }, late)
      scope.get('/timed', late)
    }
  })
  t.equal((await app.inject('/untimed-but-late')).statusCode, 200, 'no timer cuts the untimed route short')
  t.equal((await app.inject('/timed')).statusCode, 503)
  t.equal((await app.inject('/ping')).statusCode, 200)
})

t.test('a client that does not finish its request within REQUEST_TIMEOUT gets 408 problem+json', async t => {
  const app = await build(t, { env: { REQUEST_TIMEOUT: '500' } })
  const port = await listening(app)
  const { text, closedAfterMs } = await rawExchange(port, socket => {
    socket.write('POST /ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":')
  })
  t.match(text, /^HTTP\/1\.1 408 /)
  t.match(bodyOf(text), { status: 408, code: 'RequestTimeout' })
  t.ok(closedAfterMs >= 400 && closedAfterMs < 10_000, `closed after ${closedAfterMs} ms`)
})

t.test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT', async t => {
  const app = await build(t, { env: { KEEP_ALIVE_TIMEOUT: '300' } })
  const port = await listening(app)
  const { text, closedAfterMs } = await rawExchange(port, socket => {
    socket.write('GET /ping HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')
  })
  t.match(text, /^HTTP\/1\.1 200 /)
  t.match(text, /keep-alive: timeout=0?/i)
  t.ok(closedAfterMs >= 250 && closedAfterMs < 10_000, `closed after ${closedAfterMs} ms`)
})

t.test('a connection that sends nothing is closed after CONNECTION_TIMEOUT', async t => {
  const app = await build(t, { env: { CONNECTION_TIMEOUT: '300', REQUEST_TIMEOUT: '0' } })
  const port = await listening(app)
  const { text, closedAfterMs } = await rawExchange(port, () => {})
  t.equal(text, '', 'nothing was sent, nothing is answered')
  t.ok(closedAfterMs >= 250 && closedAfterMs < 10_000, `closed after ${closedAfterMs} ms`)
})

t.test('limit settings have documented defaults and refuse bad values', async t => {
  const config = loadConfig({})
  t.match(config, {
    HEADER_LIMIT: 16384,
    REQUEST_TIMEOUT: 30000,
    KEEP_ALIVE_TIMEOUT: 72000,
    CONNECTION_TIMEOUT: 120000,
    HANDLER_TIMEOUT: 10000,
    RATE_LIMIT_MAX: 600,
    RATE_LIMIT_WINDOW: 60000
  })
  t.throws(() => loadConfig({ HANDLER_TIMEOUT: '-1' }), /Invalid setting HANDLER_TIMEOUT=-1: expected milliseconds/)
  t.throws(() => loadConfig({ HEADER_LIMIT: '10' }), /Invalid setting HEADER_LIMIT/)
  t.throws(() => loadConfig({ RATE_LIMIT_WINDOW: 'soon' }), /Invalid setting RATE_LIMIT_WINDOW/)
})
