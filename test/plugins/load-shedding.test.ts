import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'

// A full collection, so the heap the limits read is the live heap, not garbage yet to be collected.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const EIGHT_MIB = 8 * 1024 * 1024

/**
 * Live data until the heap that a full collection keeps is past `bytes`, so every sample from then
 * on reads more than `bytes`. Counting `heapUsed` as the arrays are made is not enough: filling a new
 * array with doubles moves it to a new backing store and leaves the first one as garbage, so that
 * count crosses the mark with a third of it garbage, and a collection before the next sample takes
 * the reading back under the limit.
 */
function liveHeapPast (bytes: number): number[][] {
  const ballast: number[][] = []
  for (;;) {
    collectGarbage()
    const missing = bytes - process.memoryUsage().heapUsed
    if (missing < 0) return ballast
    // Arrays of doubles live on the V8 heap, 8 MiB each.
    for (let made = 0; made <= missing; made += EIGHT_MIB) ballast.push(new Array<number>(1 << 20).fill(0.5))
  }
}

function widgets (app: FastifyInstance): void {
  app.get('/widgets', async () => ({ ok: true }))
}

/** Waits for the next samples until /widgets answers `status` (readings are taken once a second). */
async function untilWidgets (app: FastifyInstance, status: number, options: { beforeEach?: () => void } = {}): Promise<LightMyRequestResponse> {
  return await eventually(async () => {
    options.beforeEach?.()
    const res = await app.inject('/widgets')
    assert.equal(res.statusCode, status, `/widgets answered ${res.statusCode}, waiting for ${status}`)
    return res
  }, { timeout: 20_000, interval: 100 })
}

/** A shed answer: the Overloaded problem with the configured Retry-After. */
function assertShed (t: Test, res: LightMyRequestResponse, retryAfter: string): void {
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], retryAfter)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  t.match(res.json(), { status: 503, code: 'Overloaded' })
}

/** While shedding: liveness and ping still answer 200. */
async function assertProbesAnswer (t: Test, app: FastifyInstance): Promise<void> {
  t.equal((await app.inject('/ping')).statusCode, 200, '/ping is not shed')
  // Liveness reads the last loop sample, which may still hold the embedded database's start-up work
  // right after readiness: it is not shed either way, and answers 200 once that sample is gone.
  await eventually(async () => { assert.equal((await app.inject('/health/live')).statusCode, 200) }, { timeout: 10_000 })
  t.equal((await app.inject('/health/shallow')).statusCode, 200, '/health/shallow is not shed')
}

t.test('past the heap limit business routes answer 503 problems with Retry-After, probes keep answering; below it they answer again', async t => {
  collectGarbage()
  // Room for the app's own allocations: the ballast below, not the app, crosses the limit.
  const limit = process.memoryUsage().heapUsed + 256 * 1024 * 1024
  const app = await build(t, { env: { SHED_MAX_HEAP_USED_BYTES: String(limit), SHED_RETRY_AFTER_SECONDS: '7' }, extraRoutes: widgets })
  await app.health.lifecycle.reached('serving')
  await untilWidgets(app, 200, { beforeEach: collectGarbage })

  const ballast = liveHeapPast(limit + 32 * 1024 * 1024)
  assertShed(t, await untilWidgets(app, 503), '7')
  t.equal((await app.inject({ method: 'POST', url: '/heartbeats', payload: {} })).statusCode, 503, 'every business route is shed, before authentication')
  await assertProbesAnswer(t, app)

  ballast.length = 0 // released: the heap goes back under the limit
  await untilWidgets(app, 200, { beforeEach: collectGarbage })
  t.pass('answers again once the heap is back under the limit')
})

t.test('past the RSS limit business routes answer 503 problems with Retry-After, probes keep answering', async t => {
  const app = await build(t, { env: { SHED_MAX_RSS_BYTES: '1', SHED_RETRY_AFTER_SECONDS: '9' }, extraRoutes: widgets })
  await app.health.lifecycle.reached('serving')
  assertShed(t, await untilWidgets(app, 503), '9')
  await assertProbesAnswer(t, app)
})

t.test('the start-up work itself sheds nothing: a fresh instance answers its first requests', async t => {
  // The last start-up step holds the event loop from just before the instance turns ready until its
  // first request is answered: every loop sample read then is far past the limit.
  const startUpWork = holdTheLoop()
  t.teardown(startUpWork.stop)
  const slowStart = (app: FastifyInstance): void => {
    widgets(app)
    app.health.register('warm-up', () => {
      if (!Object.values(app.health.readiness().checks).every(status => status === 'Healthy')) return 'Starting'
      startUpWork.start()
      return 'Healthy'
    }, { tags: ['startup'] })
  }
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '40' }, extraRoutes: slowStart })
  await app.health.lifecycle.reached('serving')
  await eventually(() => { assert.ok(app.memoryUsage().eventLoopDelay > 40, `loop delay ${app.memoryUsage().eventLoopDelay} ms`) })
  t.equal((await app.inject('/widgets')).statusCode, 200)
})

t.test('a sustained event-loop delay sheds load; probes keep answering; it recovers by itself', async t => {
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '40', SHED_RETRY_AFTER_SECONDS: '3' }, extraRoutes: widgets })
  await app.health.lifecycle.reached('serving') // nothing is shed before, nor for the start-up work
  await untilWidgets(app, 200)
  const runaway = holdTheLoop()
  t.teardown(runaway.stop)
  runaway.start()
  const res = await untilWidgets(app, 503)
  t.ok(runaway.running(), 'shedding began while the loop was slow')
  assertShed(t, res, '3')
  t.equal((await app.inject('/health/live')).statusCode, 200, 'alive: the delay is below the liveness limit')
  t.equal((await app.inject('/ping')).statusCode, 200)
  await runaway.stop()
  await untilWidgets(app, 200)
  t.pass('answers again once the loop is responsive')
})

/**
 * A runaway computation: once started, the loop turns only every 100 ms (so each loop sample reads a
 * delay of about 90 ms) until `stop`, or for 30 s at most.
 */
function holdTheLoop (): { start: () => void, running: () => boolean, stop: () => Promise<void> } {
  const state = { stopped: false } // an object: the loop reads what `stop` sets later
  let done: Promise<void> = Promise.resolve()
  let running = false
  return {
    start () {
      running = true
      done = (async () => {
        const end = Date.now() + 30_000
        while (!state.stopped && Date.now() < end) {
          const until = Date.now() + 100
          while (Date.now() < until) { /* holding the loop: the behaviour under test */ }
          await new Promise(resolve => setImmediate(resolve))
        }
        running = false
      })()
    },
    running: () => running,
    async stop () { state.stopped = true; await done }
  }
}
