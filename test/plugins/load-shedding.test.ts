import t from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.js'
import { eventually } from '../support/eventually.js'

function widgets (app: FastifyInstance): void {
  app.get('/widgets', async () => ({ ok: true }))
}

async function untilWidgets (app: FastifyInstance, status: number): Promise<void> {
  const deadline = Date.now() + 15_000
  while ((await app.inject('/widgets')).statusCode !== status) {
    if (Date.now() > deadline) throw new Error(`/widgets never answered ${status}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

t.test('without pressure every route answers', async t => {
  const app = await build(t, { extraRoutes: widgets })
  await new Promise(resolve => setTimeout(resolve, 1100))
  t.equal((await app.inject('/widgets')).statusCode, 200)
})

t.test('the start-up work itself sheds nothing: a fresh instance answers its first requests', async t => {
  // Two seconds of start-up work on the event loop after the load-shedding plugin is registered.
  const slowStart = (app: FastifyInstance): void => {
    widgets(app)
    app.register(async () => {
      const until = Date.now() + 2000
      while (Date.now() < until) { /* start-up work holding the loop */ }
    })
  }
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '40' }, extraRoutes: slowStart })
  // Let the first sample be taken: it holds the two seconds above.
  await new Promise(resolve => setTimeout(resolve, 200))
  t.equal((await app.inject('/widgets')).statusCode, 200)
})

t.test('past the heap limit business routes answer 503 problems with Retry-After; probes and ping keep answering', async t => {
  const app = await build(t, { env: { SHED_MAX_HEAP_USED_BYTES: '1', SHED_RETRY_AFTER_SECONDS: '7' }, extraRoutes: widgets })
  await untilWidgets(app, 503)
  const shed = await app.inject('/widgets')
  t.equal(shed.statusCode, 503)
  t.equal(shed.headers['retry-after'], '7')
  t.match(shed.headers['content-type'], /^application\/problem\+json/)
  t.match(shed.json(), { status: 503, code: 'Overloaded' })
  t.equal((await app.inject('/ping')).statusCode, 200)
  // Shedding starts once the instance is ready: the last loop sample may still hold the embedded
  // database's start-up work, which liveness reads; it is not shed either way.
  await eventually(async () => { assert.equal((await app.inject('/health/live')).statusCode, 200) }, { timeout: 10_000 })
  t.equal((await app.inject('/health/shallow')).statusCode, 200)
  t.not((await app.inject('/health/ready')).statusCode, undefined)
  t.equal((await app.inject({ method: 'POST', url: '/heartbeats', payload: {} })).statusCode, 503, 'every business route is shed, before authentication')
})

t.test('a sustained event-loop delay sheds load; probes keep answering; it recovers by itself', async t => {
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '40' }, extraRoutes: widgets })
  await app.health.lifecycle.reached('serving') // nothing is shed before, nor for the start-up work
  await untilWidgets(app, 200)
  // A runaway computation: the loop turns only every 100 ms, until shedding is seen (15 s at most: a busy
  // machine may delay the first loop sample that counts).
  let busy = true
  const shed = { seen: false } // an object: the loop reads what the test sets later
  const hog = (async () => {
    const end = Date.now() + 15_000
    while (!shed.seen && Date.now() < end) {
      const until = Date.now() + 100
      while (Date.now() < until) { /* hold the loop */ }
      await new Promise(resolve => setImmediate(resolve))
    }
    busy = false
  })()
  await untilWidgets(app, 503)
  t.ok(busy, 'shedding began while the loop was slow')
  t.equal((await app.inject('/health/live')).statusCode, 200, 'alive: the delay is below the liveness limit')
  t.equal((await app.inject('/ping')).statusCode, 200)
  shed.seen = true
  await hog
  await untilWidgets(app, 200)
  t.pass('answers again once the loop is responsive')
})
