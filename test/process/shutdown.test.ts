import t from 'tap'
import { Agent, get } from 'node:http'
import { subscribe } from 'node:diagnostics_channel'
import { connect, type Socket } from 'node:net'
import { mintToken } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'

/**
 * Starts a POST whose body arrives in two parts, so the request stays in flight until `finish` is called.
 * Resolves once the server has the request: it answers `100 Continue` to the request head.
 */
async function slowRequest (url: string, token: string) {
  const { hostname, port } = new URL(url)
  const body = JSON.stringify({ service: 'mailer', instanceId: 'slow-1', status: 'alive', timestamp: new Date().toISOString() })
  const socket = connect(Number(port), hostname)
  await new Promise<void>(resolve => socket.once('connect', resolve))
  let response = ''
  socket.setEncoding('utf8')
  const continued = new Promise<void>(resolve => socket.on('data', chunk => {
    response += chunk
    if (response.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) resolve()
  }))
  const closed = new Promise<void>(resolve => socket.on('close', () => resolve()))
  socket.write(`POST /heartbeats HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`)
  await Promise.race([continued, closed.then(() => { throw new Error(`closed before 100 Continue: ${response}`) })])
  socket.write(body.slice(0, 20))
  return {
    /** The final answer, after the 100 Continue. */
    async finish (): Promise<string> {
      socket.write(body.slice(20))
      await closed
      return response.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)
    }
  }
}

/** Resolves once the server refuses new connections. */
async function untilRefused (url: string): Promise<void> {
  await eventually(async () => {
    const refused = await fetch(url).then(() => false, () => true)
    if (!refused) throw new Error('the listener still accepts connections')
  }, { timeout: 30_000, interval: 100 })
}

t.test('SIGTERM: ready turns 503 at once, a slow request in flight completes, the process exits 0', async t => {
  const server = await startServerProcess(t, { SHUTDOWN_DRAIN_DELAY_MS: '5000', HEALTH_REFRESH_INTERVAL_MS: '200' })
  await untilReady(server.url)
  const inFlight = await slowRequest(server.url, await mintToken({ scope: 'heartbeat:write' }))

  server.child.kill('SIGTERM')
  // Within the drain the listener still accepts: a readiness that stayed 200 fails here once it closes.
  const ready = await eventually(async () => {
    const res = await fetch(`${server.url}/health/ready`)
    if (res.status !== 503) throw new Error(`readiness answers ${res.status} after SIGTERM`)
    return res
  }, { timeout: 30_000, interval: 50 })
  t.equal(((await ready.json()) as { status: string }).status, 'NotReady', 'readiness is 503 NotReady during the drain')
  t.equal((await fetch(`${server.url}/health/live`)).status, 200, 'still alive while draining')

  // Past the drain delay the listener closes; the request in flight is still answered.
  await untilRefused(`${server.url}/ping`)
  const response = await inFlight.finish()
  t.match(response, /^HTTP\/1\.1 204 /, 'the slow request completed')
  t.equal(await server.exited, 0, 'exit code 0')
  t.match(server.output(), /shutting down/)
  t.match(server.output(), /"msg":"shut down"/)
  t.equal(server.output().match(/"msg":"lifecycle: draining"/g)?.length, 1, 'shutdown was begun once')
})

t.test('SIGTERM without a drain delay: the process exits 0 promptly', async t => {
  // The shutdown bound is far from the prompt exit expected: a shutdown held to it fails by tens of seconds.
  const server = await startServerProcess(t, { SHUTDOWN_TIMEOUT_MS: '60000' })
  await untilReady(server.url)
  const started = Date.now()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  t.ok(Date.now() - started < 20_000, `exited in ${Date.now() - started} ms`)
})

/** `reused`: whether the connection had carried an answer before this request. */
type Outcome = { status: number, connection: string, problem: boolean } | { error: string, reused: boolean }

/** One GET on a kept-alive connection: the answer, or the error's code. */
async function keptAliveGet (url: string, agent: Agent): Promise<Outcome> {
  return await new Promise(resolve => {
    const request = get(url, { agent }, res => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection ?? '', problem: /problem\+json/.test(res.headers['content-type'] ?? '') && res.headers['retry-after'] !== undefined }))
      res.on('error', error => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message, reused: request.reusedSocket }))
    }).on('error', error => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message, reused: request.reusedSocket }))
  })
}

/**
 * Clients that send one request after another on kept-alive connections. A client told
 * `Connection: close` would open its next request elsewhere: here, where there is no elsewhere, it stops.
 * So does one whose connection is refused (the request was never sent).
 */
function keepAliveLoad (url: string, clients: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: clients })
  const counts = { answered: 0, failed: [] as string[], resets: [] as string[], toldToClose: 0, refused: 0 }
  const clientsDone = Promise.all(Array.from({ length: clients }, async () => {
    for (;;) {
      const outcome = await keptAliveGet(url, agent)
      if ('error' in outcome) {
        if (outcome.error === 'ECONNREFUSED') { counts.refused++; return }
        counts.resets.push(outcome.error)
        return
      }
      counts.answered++
      // Any 503 that must happen is a problem with Retry-After; Fastify's plain 503 is a failure.
      if (outcome.status !== 200 && !(outcome.status === 503 && outcome.problem)) counts.failed.push(String(outcome.status))
      if (outcome.connection === 'close') { counts.toldToClose++; return }
    }
  }))
  return { counts, done: async () => { await clientsDone; agent.destroy(); return counts } }
}

t.test('SIGTERM under a kept-alive load: every request sent is answered, none is reset, each connection is told to close', async t => {
  const drainMs = 5000
  const server = await startServerProcess(t, { SHUTDOWN_DRAIN_DELAY_MS: String(drainMs) })
  await untilReady(server.url)
  // A client that keeps a connection open and sends nothing more: the drain closes it.
  const idle = connect(Number(new URL(server.url).port), '127.0.0.1')
  let idleClosedAt = Infinity
  idle.on('close', () => { idleClosedAt = Date.now() })
  idle.on('data', () => {}).on('error', () => {})
  idle.write('GET /ping HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')

  const load = keepAliveLoad(`${server.url}/ping`, 20)
  await eventually(() => { if (load.counts.answered < 200) throw new Error(`${load.counts.answered} answered so far`) }, { timeout: 20_000 })
  const signalledAt = Date.now()
  const answeredBefore = load.counts.answered
  server.child.kill('SIGTERM')
  const counts = await load.done()

  t.equal(counts.resets.length, 0, `no request reset${counts.resets.length > 0 ? `: ${counts.resets.slice(0, 5).join(', ')}` : ''}`)
  t.equal(counts.failed.length, 0, `no failed answer${counts.failed.length > 0 ? `: ${counts.failed.slice(0, 5).join(', ')}` : ''}`)
  t.equal(counts.toldToClose, 20, 'every client was told Connection: close and left')
  t.ok(counts.answered > answeredBefore, `${counts.answered - answeredBefore} requests answered after SIGTERM`)
  await eventually(() => { if (idleClosedAt === Infinity) throw new Error('the idle connection is still open') }, { timeout: 20_000 })
  // It rested through the drain: it is closed when the listener stops accepting, not before.
  t.ok(idleClosedAt - signalledAt >= drainMs, `the idle kept-alive connection was closed ${idleClosedAt - signalledAt} ms after SIGTERM, once the drain was over`)
  t.equal(await server.exited, 0, 'exit code 0')
})

/** An error's code as a client library reports it: Node's http, or fetch (undici) with its cause. */
function errorCode (error: unknown): string {
  const cause = (error as { cause?: { code?: string, message?: string } }).cause
  return cause?.code ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message
}

// Node's fetch is undici, which publishes each request's socket and error: which connection failed.
const fetchRequests = new WeakMap<object, { socket: Socket, readBefore: number }>()
const fetchFailures = new WeakMap<object, { socket: Socket, readBefore: number } | 'unsent'>()
subscribe('undici:client:sendHeaders', message => {
  const { request, socket } = message as { request: object, socket: Socket }
  fetchRequests.set(request, { socket, readBefore: socket.bytesRead })
})
subscribe('undici:request:error', message => {
  const { request, error } = message as { request: object, error: object }
  fetchFailures.set(error, fetchRequests.get(request) ?? 'unsent')
})
/**
 * Whether the request that failed with `error` was sent on a connection fetch had been answered on
 * before. A request never sent (its new connection was reset before fetch wrote to it) was not.
 */
function fetchReused (error: unknown): boolean {
  const cause = (error as { cause?: object }).cause
  const sent = cause === undefined ? undefined : fetchFailures.get(cause)
  return sent !== 'unsent' && sent?.readBefore !== 0
}

/**
 * Clients that reconnect: each sends one request after another until its connection is refused,
 * opening a new connection whenever it is told `Connection: close` (Node's http.Agent and fetch both
 * do). Any other error is a reset or an aborted exchange.
 *
 * A connection that reaches the kernel in the instant the listener closes is reset by the kernel before
 * the service sees it: no request of it was read, so a client may retry it, and these clients do (they
 * then meet the refusal). Only such a fresh connection is retried: a reset of a connection that had
 * carried answers is the service's failure.
 */
function reconnectingLoad (url: string, clients: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: clients })
  const counts = { answered: 0, errors: [] as string[], serverErrors: [] as number[], refused: 0, freshResets: 0 }
  const record = (status: number) => {
    counts.answered++
    if (status >= 500) counts.serverErrors.push(status)
  }
  const viaAgent = async () => {
    for (;;) {
      const outcome = await keptAliveGet(url, agent)
      if ('error' in outcome) {
        if (outcome.error === 'ECONNREFUSED') { counts.refused++; return }
        if (outcome.error === 'ECONNRESET' && !outcome.reused) { counts.freshResets++; continue }
        counts.errors.push(`http.Agent: ${outcome.error}`)
        return
      }
      record(outcome.status)
    }
  }
  const viaFetch = async () => {
    for (;;) {
      try {
        const res = await fetch(url)
        await res.arrayBuffer()
        record(res.status)
      } catch (error) {
        if (errorCode(error) === 'ECONNREFUSED') { counts.refused++; return }
        if (errorCode(error) === 'ECONNRESET' && !fetchReused(error)) { counts.freshResets++; continue }
        counts.errors.push(`fetch: ${errorCode(error)}`)
        return
      }
    }
  }
  const done = Promise.all([...Array.from({ length: clients }, viaAgent), ...Array.from({ length: clients }, viaFetch)])
  return { counts, done: async () => { await done; agent.destroy(); return counts } }
}

for (const drainMs of [0, 1500]) {
  t.test(`SIGTERM with SHUTDOWN_DRAIN_DELAY_MS=${drainMs} and clients that reconnect: no reset and no 5xx, five runs in a row`, async t => {
    for (let run = 1; run <= 5; run++) {
      const server = await startServerProcess(t, { SHUTDOWN_DRAIN_DELAY_MS: String(drainMs) })
      await untilReady(server.url)
      const load = reconnectingLoad(`${server.url}/ping`, 16)
      await eventually(() => { if (load.counts.answered < 500) throw new Error(`${load.counts.answered} answered so far`) }, { timeout: 20_000 })
      server.child.kill('SIGTERM')
      const counts = await load.done()
      t.same(counts.errors, [], `run ${run}: no client saw a reset (${counts.answered} answered, ${counts.refused} refused at the end, ${counts.freshResets} fresh connections reset by the closing listener)`)
      t.same(counts.serverErrors, [], `run ${run}: no 5xx`)
      t.equal(counts.refused, 32, `run ${run}: every client ended on a refused connection`)
      t.equal(await server.exited, 0, `run ${run}: exit code 0`)
    }
  })
}
