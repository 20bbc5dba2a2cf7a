import t from 'tap'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { connectionCap, isDescriptorExhaustion, openFileLimit } from '../../src/http/descriptor-limit.js'
import { eventually } from '../support/eventually.js'
import { startServerProcessUnder } from '../support/server-process.js'

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
