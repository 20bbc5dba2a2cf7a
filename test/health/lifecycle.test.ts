import t from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { bearer, build } from '../helper.ts'
import { closedPort } from '../support/closed-port.ts'
import { eventually } from '../support/eventually.ts'
import { createLifecycle } from '../../src/health/lifecycle.ts'
import { createReadiness } from '../../src/health/readiness.ts'
import { createHealthRegistry } from '../../src/health/registry.ts'

const FAST = { HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0' }

t.test('database unreachable at boot: startup Healthy, readiness 503, business routes 503 Starting, never Overloaded', async t => {
  // Every shed-able request is past the heap limit: only the start-up state may decide the answer.
  const port = await closedPort()
  const lines: string[] = []
  const app = await build(t, {
    env: { ...FAST, LOG_LEVEL: 'info', DATABASE_URL: `postgres://postgres:s3cr3t-pw@127.0.0.1:${port}/none`, SHED_MAX_HEAP_USED_BYTES: '1', RETRY_AFTER_SECONDS: '9' },
    logStream: { write: line => { lines.push(line) } }
  })
  const auth = await bearer({ scope: 'vagas:read candidatos:read' })

  await eventually(async () => { assert.equal((await app.inject('/health/startup')).statusCode, 200) }, { timeout: 15_000 })
  t.same((await app.inject('/health/startup')).json(), { status: 'Healthy' }, 'startup is the boot phase only')
  // The first connection attempt fails within its timeout; readiness is NotReady until then.
  await eventually(async () => { assert.equal((await app.inject('/health/ready')).json().status, 'Unhealthy') }, { timeout: 15_000 })
  const ready = await app.inject('/health/ready')
  t.equal(ready.statusCode, 503, 'the database keeps readiness 503')
  t.equal(app.health.startup(), 'Healthy', 'and startup stays Healthy')

  for (const url of ['/api/v1/vagas', '/api/v2/candidatos']) {
    const res = await app.inject({ url, headers: auth })
    t.equal(res.statusCode, 503, url)
    t.match(res.headers['content-type'], /^application\/problem\+json/)
    t.equal(res.headers['retry-after'], '9', 'RETRY_AFTER_SECONDS')
    t.match(res.json(), { status: 503, code: 'Starting' }, `${url} is Starting, not Overloaded`)
  }
  t.equal((await app.inject('/api/v1/vagas')).statusCode, 401, 'a request without a token is still refused as such')

  // The retry line names where the database is, never its password.
  const retry = lines.map(line => JSON.parse(line) as { msg: string, database?: string }).find(line => line.msg.includes('retrying'))
  t.match(retry, { database: `127.0.0.1:${port}/none`, msg: `database not ready at 127.0.0.1:${port}/none; retrying` })
  t.notOk(lines.some(line => line.includes('s3cr3t-pw')), 'the password is in no log line')
})

t.test('once readiness is Healthy, nothing is shed for the work the instance did while starting', async t => {
  let warmedUp = false
  const app = await build(t, {
    env: { ...FAST, SHED_MAX_EVENT_LOOP_DELAY_MS: '40' },
    extraRoutes: scope => {
      // A start-up step that gates readiness, as opening a database does.
      scope.health.register('warm-up', () => warmedUp ? 'Healthy' : 'NotReady', { tags: ['ready'] })
      scope.get('/widgets', async () => ({ ok: true }))
    }
  })
  const auth = await bearer({ scope: 'vagas:read' })
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: auth })).json().code, 'Starting')
  await app.storage.whenReady()
  // The loop has been sampled for a while since boot, so readings would count if boot were the mark.
  await eventually(() => { if (app.memoryUsage().eventLoopDelay <= 0) throw new Error('no sample yet') })
  t.equal((await app.inject('/health/ready')).statusCode, 503, 'readiness waits for the warm-up')

  // The last of the start-up work holds the loop: it turns only every 100 ms for 1.5 s.
  const end = Date.now() + 1500
  while (Date.now() < end) {
    const until = Date.now() + 100
    while (Date.now() < until) { /* start-up work holding the loop */ }
    await new Promise(resolve => setImmediate(resolve))
  }
  warmedUp = true
  await app.health.refresh()
  t.equal((await app.inject('/health/ready')).statusCode, 200, 'readiness turned Healthy')

  const widgets = await app.inject('/widgets')
  t.equal(widgets.statusCode, 200, `right after readiness: ${widgets.body}`)
  const vagas = await app.inject({ url: '/api/v1/vagas', headers: auth })
  t.equal(vagas.statusCode, 200, `business routes take work: ${vagas.body}`)
})

t.test('readiness turns Healthy once the database is ready, not when its first result expires', async t => {
  // Results kept, and the refresh run, far longer than the wait below: only the storage's own
  // readiness can turn readiness Healthy within it.
  const app = await build(t, { env: { HEALTH_CACHE_TTL_MS: '120000', HEALTH_REFRESH_INTERVAL_MS: '120000' } })
  await app.storage.whenReady()
  await eventually(async () => { assert.equal((await app.inject('/health/ready')).statusCode, 200) }, { timeout: 30_000 })
  t.equal(app.health.lifecycle.phase(), 'serving', 'the instance is serving')
})

t.test('the lifecycle moves forward only: booting, started, serving, draining', async t => {
  const app: FastifyInstance = await build(t, { env: FAST })
  await app.health.lifecycle.reached('serving')
  t.equal(app.health.startup(), 'Healthy')
  app.health.beginShutdown()
  t.equal(app.health.lifecycle.phase(), 'draining')
  t.equal(app.health.readiness().status, 'NotReady')
  t.equal(app.health.startup(), 'Healthy', 'startup stays finished')
})

t.test('shutdown is begun once: a second call neither re-enters draining nor repeats the readiness change', async t => {
  const lifecycle = createLifecycle()
  const registry = createHealthRegistry({ timeout: 500, cacheTtl: 0 }, { warn: () => {}, info: () => {} })
  registry.register('configuration', () => 'Healthy', { tags: ['ready', 'startup'] })
  const readiness = createReadiness(registry, lifecycle, 1000)
  const entered: string[] = []
  const heard: string[] = []
  lifecycle.onEnter(phase => entered.push(phase))
  readiness.onChange(status => heard.push(status))

  await readiness.refresh()
  t.same(entered, ['started', 'serving'])
  t.same(heard, ['Healthy'])
  lifecycle.advance('draining')
  t.same(heard, ['Healthy', 'NotReady'], 'listeners hear NotReady in the same tick')
  lifecycle.advance('draining')
  lifecycle.advance('serving')
  await readiness.refresh()
  t.same(entered, ['started', 'serving', 'draining'], 'draining entered once, and never left')
  t.same(heard, ['Healthy', 'NotReady'], 'NotReady announced once')
  t.equal(readiness.readiness().status, 'NotReady')
})

t.test('beginShutdown twice on the app: readiness listeners hear NotReady once', async t => {
  const app: FastifyInstance = await build(t, { env: FAST })
  await app.health.lifecycle.reached('serving')
  const phases: string[] = []
  app.health.onReadinessChange(status => phases.push(status))
  app.health.beginShutdown()
  app.health.beginShutdown()
  t.same(phases, ['NotReady'], 'a second call changes nothing')
})

t.test('app.close() with no signal still drains: readiness listeners hear NotReady, the lifecycle ends draining', async t => {
  const app: FastifyInstance = await build(t, { env: FAST })
  await app.health.lifecycle.reached('serving')
  const heard: string[] = []
  app.health.onReadinessChange(status => heard.push(status))
  await app.close()
  t.equal(app.health.lifecycle.phase(), 'draining')
  t.same(heard, ['NotReady'], 'told once, as gRPC health and the connection drain need')
})
