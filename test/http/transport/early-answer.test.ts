import t from 'tap'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { once } from 'node:events'
import { bearer, build } from '../../helper.ts'
import { eventually } from '../../support/eventually.ts'
import { startServerProcess, untilReady } from '../../support/server-process.ts'
import { DRAIN_MAX_BYTES, DRAIN_MAX_MS } from '../../../src/http/transport/early-answer.ts'

// Five times the default BODY_LIMIT: answered 413 from its Content-Length, long before it is all sent.
const BODY = JSON.stringify({ titulo: 'Grande', descricao: 'x'.repeat(5 * 1024 * 1024) })
const CLIENTS = 20

interface Outcome { status?: number, contentType?: string, code?: string, error?: string }

async function withFetch (url: string, headers: Record<string, string>): Promise<Outcome> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: BODY })
    const body = await res.json() as { code?: string }
    return { status: res.status, contentType: res.headers.get('content-type') ?? undefined, code: body.code }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return { error: cause?.code ?? String(error) }
  }
}

async function withNodeHttp (url: string, headers: Record<string, string>): Promise<Outcome> {
  return await new Promise(resolve => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) } }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', chunk => { text += chunk })
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, contentType: res.headers['content-type'], code: (JSON.parse(text) as { code?: string }).code })
        } catch (error) { resolve({ error: String(error) }) }
      })
      res.on('error', error => { resolve({ error: (error as NodeJS.ErrnoException).code ?? String(error) }) })
    })
    req.on('error', error => { resolve({ error: (error as NodeJS.ErrnoException).code ?? String(error) }) })
    req.end(BODY)
  })
}

// The server runs in a process of its own: in the clients' process, it would close its side between
// their reads, never while they write.
t.test('a body over the limit: every client reads its 413 problem, none sees a broken connection', async t => {
  const server = await startServerProcess(t, { RATE_LIMIT_MAX: '0' })
  await untilReady(server.url, 60_000)
  const url = `${server.url}/api/v2/vagas`
  const headers = await bearer({ scope: 'vagas:read vagas:write' })
  const expected = { status: 413, contentType: 'application/problem+json; charset=utf-8', code: 'BodyTooLarge' }
  for (const [name, client] of [['fetch', withFetch], ['node:http', withNodeHttp]] as const) {
    const outcomes: Outcome[] = []
    for (let i = 0; i < CLIENTS; i++) outcomes.push(await client(url, headers))
    const failed = outcomes.filter(outcome => outcome.status !== 413)
    t.same(failed, [], `${name}: ${CLIENTS - failed.length} of ${CLIENTS} read the 413`)
    t.same(outcomes.filter(outcome => outcome.status === 413)[0], expected, `${name}: the answer is the BodyTooLarge problem`)
  }
})

/** A raw client announcing `length` body bytes after a valid head; resolves once connected. */
async function rawPoster (port: number, authorization: string, length: number) {
  const socket = connect(port, '127.0.0.1')
  let answer = ''
  let closedAt: number | undefined
  socket.on('data', chunk => { answer += chunk.toString('latin1') })
  socket.on('error', () => {})
  socket.on('close', () => { closedAt = Date.now() })
  await once(socket, 'connect')
  socket.write(['POST /api/v2/vagas HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${length}`, `Authorization: ${authorization}`, '', ''].join('\r\n'))
  return { socket, answer: () => answer, closedAt: () => closedAt }
}

t.test('after an early answer the rest of the body is read only up to a bound in bytes and in time', async t => {
  const app = await build(t)
  await app.health.lifecycle.reached('serving')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const { authorization } = await bearer({ scope: 'vagas:read vagas:write' })

  // A client that keeps sending after its answer, past the byte bound: cut off.
  const flood = await rawPoster(port, authorization, 1024 * 1024 * 1024)
  t.teardown(() => { flood.socket.destroy() })
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  let sent = 0
  const started = Date.now()
  while (flood.closedAt() === undefined && sent < 4 * DRAIN_MAX_BYTES) {
    if (!flood.socket.write(chunk)) await new Promise(resolve => { flood.socket.once('drain', resolve).once('close', resolve) })
    sent += chunk.length
  }
  await eventually(() => { assert.notEqual(flood.closedAt(), undefined) }, { timeout: DRAIN_MAX_MS + 20_000 })
  t.match(flood.answer(), /^HTTP\/1\.1 413 /, 'it was answered 413 first')
  t.ok(sent < 2 * DRAIN_MAX_BYTES + 16 * 1024 * 1024, `closed after ${sent} bytes sent (bound ${DRAIN_MAX_BYTES})`)
  t.ok(flood.closedAt()! - started < DRAIN_MAX_MS + 5_000, `closed ${flood.closedAt()! - started} ms after it began`)

  // A client that stops sending after its answer: cut off once the time bound has passed.
  const stalled = await rawPoster(port, authorization, 10 * 1024 * 1024)
  t.teardown(() => { stalled.socket.destroy() })
  stalled.socket.write(Buffer.alloc(64 * 1024, 0x20))
  await eventually(() => { assert.match(stalled.answer(), /^HTTP\/1\.1 413 /) }, { timeout: 20_000 })
  const answeredAt = Date.now()
  await eventually(() => { assert.notEqual(stalled.closedAt(), undefined) }, { timeout: DRAIN_MAX_MS + 20_000 })
  const lingered = stalled.closedAt()! - answeredAt
  t.ok(lingered >= DRAIN_MAX_MS - 500, `a client still sending is given time: closed after ${lingered} ms`)
  t.ok(lingered < DRAIN_MAX_MS + 10_000, `and closed within the time bound (${DRAIN_MAX_MS} ms): ${lingered} ms`)
})
