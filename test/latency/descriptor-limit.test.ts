import t from 'tap'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { MANAGEMENT_MAX_CONNECTIONS, connectionCap, isDescriptorExhaustion, openFileLimit, shareConnections } from '../../src/http/transport/descriptor-limit.ts'
import { eventually } from '../support/eventually.ts'
import { startServerProcessUnder } from '../support/server-process.ts'

t.test('the open-file limit is read from /proc/self/limits, and leaves the process its own descriptors', async t => {
  const dir = t.testdir()
  const limits = (soft: string) => {
    const file = join(dir, `limits-${soft}`)
    writeFileSync(file, `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                 4096                 files\n`)
    return file
  }
  t.equal(openFileLimit(limits('1024')), 1024)
  t.equal(openFileLimit(limits('unlimited')), undefined)
  t.equal(openFileLimit(join(dir, 'missing')), undefined)
  t.type(openFileLimit(), 'number', 'this machine\'s')
  t.equal(connectionCap(1024), 768)
  t.equal(connectionCap(65536), 65280)
  t.ok(isDescriptorExhaustion(Object.assign(new Error('x'), { code: 'EMFILE' })))
  t.notOk(isDescriptorExhaustion(new Error('x')))
})

t.test('the management listener takes a small share of the connection budget, and the service\'s port the rest', async t => {
  t.same(shareConnections(768, false), { api: 768, management: undefined }, 'all of it without a management listener')
  t.same(shareConnections(768, true), { api: 768 - MANAGEMENT_MAX_CONNECTIONS, management: MANAGEMENT_MAX_CONNECTIONS })
  t.same(shareConnections(80, true), { api: 70, management: 10 }, 'an eighth of a small budget')
  t.same(shareConnections(4, true), { api: 3, management: 1 }, 'at least one')
  t.same(shareConnections(undefined, true), { api: undefined, management: MANAGEMENT_MAX_CONNECTIONS }, 'no budget: the management listener is still capped')
})

t.test('under a limit of 1024 open files, 1,100 silent connections neither stop the service nor stay open', async t => {
  const server = await startServerProcessUnder(t, ['prlimit', '--nofile=1024:1024'], { NEW_CONNECTION_TIMEOUT: '2000' })
  const { port } = new URL(server.url)
  const sockets: Socket[] = []
  let closed = 0
  t.teardown(() => { for (const socket of sockets) socket.destroy() })
  for (let i = 0; i < 1100; i++) {
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    socket.once('close', () => { closed++ })
    sockets.push(socket)
  }
  await Promise.all(sockets.map(async socket => { if (socket.connecting) await once(socket, 'connect').catch(() => {}) }))
  // Past the cap (768 under this limit) connections are closed as they arrive; the rest once silent for 2 s.
  await eventually(() => { assert.ok(closed >= 1100 - 768, `${closed} closed so far`) }, { timeout: 10_000, interval: 20 })
  await eventually(() => { assert.equal(closed, 1100, `${closed} of 1100 closed`) }, { timeout: 30_000, interval: 50 })
  t.equal(server.child.exitCode, null, 'the service still runs')
  t.equal((await fetch(`${server.url}/health/live`)).status, 200, 'and answers')
  t.notMatch(server.output(), /unexpected error|EMFILE/, 'it never hit the limit')
})

/** Whether an open connection answers a request within 10 s. */
async function answersOn (socket: Socket): Promise<boolean> {
  return await new Promise(resolve => {
    const timer = setTimeout(() => { resolve(false) }, 10_000)
    socket.once('data', () => { clearTimeout(timer); resolve(true) })
    socket.once('close', () => { clearTimeout(timer); resolve(false) })
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n')
  })
}

/** Answers a GET on a connection of its own, as a new client does: the status, or the error's code. */
async function freshGet (url: string): Promise<number | string> {
  return await new Promise(resolve => {
    const request = get(url, { agent: false, timeout: 5_000 }, response => { response.resume(); resolve(response.statusCode!) })
    request.on('timeout', () => { request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })) })
    request.on('error', (error: Error & { code?: string }) => { resolve(error.code ?? error.message) })
  })
}

t.test('under a limit of 1024 open files, 1,100 silent connections to the management listener leave the API answering', async t => {
  const server = await startServerProcessUnder(t, ['prlimit', '--nofile=1024:1024'], { MANAGEMENT_PORT: '0', NEW_CONNECTION_TIMEOUT: '60000' })
  const management = /management listener at (http:\/\/127\.0\.0\.1:(\d+))/.exec(server.output())
  assert.ok(management !== null, 'the management listener is on')
  const sockets: Socket[] = []
  t.teardown(() => { for (const socket of sockets) socket.destroy() })
  for (let i = 0; i < 1100; i++) {
    const socket = connect(Number(management[2]), '127.0.0.1')
    socket.on('error', () => {})
    sockets.push(socket)
  }
  await Promise.all(sockets.map(async socket => { if (socket.connecting) await once(socket, 'connect').catch(() => {}) }))
  const answers: Array<number | string> = []
  for (let i = 0; i < 20; i++) answers.push(await freshGet(`${server.url}/health/live`))
  t.same(answers, Array(20).fill(200), 'every API request answered while the flood holds its connections')
  // The management listener holds its share of the budget and closes the rest as they arrive. What it
  // holds answers a request; a socket the kernel dropped while its handshake waited past the listen
  // backlog on a busy machine, or one the cap closed, does not.
  const held = (await Promise.all(sockets.filter(socket => !socket.destroyed).map(answersOn))).filter(Boolean).length
  t.ok(held > 0 && held <= MANAGEMENT_MAX_CONNECTIONS, `${held} flood connections held, at most ${MANAGEMENT_MAX_CONNECTIONS}`)
  for (const socket of sockets) socket.destroy()
  await eventually(async () => { assert.equal(await freshGet(`${management[1]}/health/live`), 200) }, { timeout: 10_000, interval: 100 })
  t.pass('the management listener answers once the flood is gone')
})
