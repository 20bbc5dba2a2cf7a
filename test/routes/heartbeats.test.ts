import t from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { bearer, build, mintToken, uniqueRedisPrefix } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { requireService } from '../support/services.ts'
import { forwardedService } from '../support/tcp-forwarder.ts'

function beat (overrides: Record<string, unknown> = {}) {
  return { service: 'mailer', instanceId: 'mailer-1', status: 'alive', timestamp: new Date().toISOString(), ...overrides }
}

async function post (app: FastifyInstance, payload: unknown, scope = 'heartbeat:write') {
  return app.inject({ method: 'POST', url: '/heartbeats', payload: payload as object, headers: await bearer({ scope }) })
}

async function workers (app: FastifyInstance) {
  const res = await app.inject({ url: '/health/deep', headers: await bearer({ scope: 'health:read' }) })
  return res.json().checks.workers
}

const FAST = { HEALTH_CACHE_TTL_MS: '0' }
// A heartbeat whose Redis write times out is kept locally only (by design); on a busy test machine the
// default timeout would drop some of the 2,000 from Redis, which is not what the bound test is about.
const BUSY_MACHINE_REDIS_TIMEOUT_MS = '5000'

/** Waits until the app is connected to Redis. */
async function untilCacheHealthy (app: FastifyInstance): Promise<void> {
  await eventually(async () => { assert.equal((await app.inject('/health/ready')).json().checks.cache, 'Healthy', 'waiting for Redis') }, { interval: 50 })
}

t.test('POST /heartbeats needs heartbeat:write', async t => {
  const app = await build(t)
  const anonymous = await app.inject({ method: 'POST', url: '/heartbeats', payload: beat() })
  t.equal(anonymous.statusCode, 401)
  t.equal((await post(app, beat(), 'health:read')).statusCode, 403)
})

t.test('a valid heartbeat is recorded (204); bad messages answer 400 problems', async t => {
  const app = await build(t, { env: FAST })
  const ok = await post(app, beat())
  t.equal(ok.statusCode, 204)
  t.equal(ok.body, '')
  for (const bad of [
    beat({ status: 'dead' }),
    beat({ timestamp: 'yesterday' }),
    beat({ service: '' }),
    beat({ instanceId: '../../etc/passwd' }),
    { service: 'mailer' },
    beat({ extra: 1 })
  ]) {
    const res = await post(app, bad)
    t.equal(res.statusCode, 400, JSON.stringify(bad))
    t.match(res.headers['content-type'], /^application\/problem\+json/)
    t.equal(res.json().code, 'ValidationFailed')
  }
  const future = await post(app, beat({ timestamp: new Date(Date.now() + 5 * 60_000).toISOString() }))
  t.equal(future.statusCode, 400)
  t.equal(future.json().code, 'TimestampInFuture')
  const slightlyAhead = await post(app, beat({ timestamp: new Date(Date.now() + 5_000).toISOString() }))
  t.equal(slightlyAhead.statusCode, 204, 'a small clock skew is tolerated')
  // RFC 3339 writes these, but no instant the service reads: a leap second escaped the skew check.
  for (const timestamp of ['2999-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-01:00']) {
    const res = await post(app, beat({ timestamp }))
    t.equal(res.statusCode, 400, timestamp)
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'body', field: '/timestamp', message: /0001-01-01T00:00:00Z/ }] }, timestamp)
  }
})

t.test('the workers dependency lists each instance and reports a silent one Unhealthy', async t => {
  // Silent after 3 missed beats of 500 ms: wide enough that a busy machine (the test suite runs files
  // in parallel) does not make a beating worker look silent between two checks.
  const intervalMs = 500
  const app = await build(t, { env: { ...FAST, HEARTBEAT_TOLERANCE: '3' } })
  t.match(await workers(app), { status: 'Healthy', details: { instances: 0 } }, 'no worker known yet')
  const silentFrom = Date.now() // mailer-1's last beat until the end of the test's first half
  t.equal((await post(app, beat({ intervalMs }))).statusCode, 204)
  t.equal((await post(app, beat({ instanceId: 'mailer-2', intervalMs: 60_000 }))).statusCode, 204)
  t.match(await workers(app), { status: 'Healthy', critical: false, details: { instances: 2, 'mailer/mailer-1': 'Healthy', 'mailer/mailer-2': 'Healthy' } })
  await eventually(async () => { assert.equal((await workers(app)).status, 'Unhealthy') }, { interval: 100 })
  t.ok(Date.now() - silentFrom >= 3 * intervalMs - 50, `Unhealthy after ${Date.now() - silentFrom} ms of silence, not before three beats were missed`)
  t.match(await workers(app), { status: 'Unhealthy', details: { 'mailer/mailer-1': 'Unhealthy', 'mailer/mailer-2': 'Healthy' } })
  const deps = await app.inject({ url: '/health/dependencies', headers: await bearer({ scope: 'health:read' }) })
  t.match(deps.json().dependencies.find((d: { name: string }) => d.name === 'workers'), { name: 'workers', status: 'Unhealthy' })
  const one = await app.inject({ url: '/health/workers', headers: await bearer({ scope: 'health:read' }) })
  t.equal(one.statusCode, 503)
  t.equal((await app.inject('/health/ready')).json().checks.workers, undefined, 'workers never decide readiness')
  t.equal((await post(app, beat({ intervalMs }))).statusCode, 204)
  t.equal((await workers(app)).status, 'Healthy', 'beating again makes it Healthy')
})

t.test('with Redis every instance of the service sees every heartbeat', async t => {
  const url = requireService(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  // A command slower than the default limit, as on a busy machine, would keep the beat local.
  const env = { ...FAST, REDIS_URL: url, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'heartbeats'), REDIS_COMMAND_TIMEOUT_MS: BUSY_MACHINE_REDIS_TIMEOUT_MS }
  const first = await build(t, { env })
  const second = await build(t, { env })
  // Both are connected to Redis before the heartbeat is sent.
  for (const app of [first, second]) await untilCacheHealthy(app)
  t.equal((await post(first, beat({ instanceId: 'mailer-9' }))).statusCode, 204)
  t.match(await workers(second), { status: 'Healthy', details: { instances: 1, 'mailer/mailer-9': 'Healthy' } })
})

t.test('Redis lost: heartbeats are still accepted and the workers dependency falls back to local state', async t => {
  const url = requireService(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const { proxy, url: viaProxy } = await forwardedService(t, url, 6379)
  const app = await build(t, { env: { ...FAST, REDIS_URL: viaProxy, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'heartbeats-lost') } })
  await untilCacheHealthy(app)
  await proxy.down()
  const started = Date.now()
  t.equal((await post(app, beat({ instanceId: 'mailer-7' }))).statusCode, 204, 'accepted while Redis is down')
  t.ok(Date.now() - started < 3000, 'without waiting long for Redis')
  t.match(await workers(app), { status: 'Healthy', details: { 'mailer/mailer-7': 'Healthy' } }, 'read from local state, not Timeout')
})

t.test('with HEARTBEAT_URL the service pushes its own heartbeat', async t => {
  const receiver = await build(t, { env: FAST })
  await receiver.listen({ port: 0, host: '127.0.0.1' })
  const address = receiver.server.address() as { port: number }
  const token = await mintToken({ scope: 'heartbeat:write' })
  await build(t, { env: { HEARTBEAT_URL: `http://127.0.0.1:${address.port}/heartbeats`, HEARTBEAT_TOKEN: token, HEARTBEAT_INTERVAL_MS: '1000' } })
  const seen = await eventually(async () => {
    const listed = await workers(receiver)
    assert.ok((listed?.details as { instances: number }).instances > 0, 'no heartbeat received yet')
    return listed
  }, { timeout: 10_000, interval: 100 })
  t.match(seen, { status: 'Healthy', details: { instances: 1 } })
  t.ok(Object.keys(seen?.details as object).some(key => key.startsWith('recrutamento-api/')))
})

/** Sends a heartbeat from each of `count` distinct instances, `from` on, 50 at a time. */
async function beatFrom (app: FastifyInstance, from: number, count: number): Promise<void> {
  const headers = await bearer({ scope: 'heartbeat:write' })
  for (let i = from; i < from + count; i += 50) {
    const sent = await Promise.all(Array.from({ length: Math.min(50, from + count - i) }, (_, j) =>
      app.inject({ method: 'POST', url: '/heartbeats', headers, payload: beat({ instanceId: `worker-${i + j}` }) })))
    assert.ok(sent.every(res => res.statusCode === 204))
  }
}

for (const withRedis of [false, true]) {
  t.test(`instances are bounded by HEARTBEAT_MAX_INSTANCES, the longest silent going first, and /health/deep stays small${withRedis ? ', through Redis' : ''}`, async t => {
    const redisUrl = withRedis ? requireService(t, 'TEST_REDIS_URL') : undefined
    if (withRedis && redisUrl === undefined) return
    const app = await build(t, { env: { ...FAST, RATE_LIMIT_MAX: '0', HEARTBEAT_MAX_INSTANCES: '300', ...(redisUrl !== undefined && { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, redisUrl, 'heartbeats-bound'), REDIS_COMMAND_TIMEOUT_MS: BUSY_MACHINE_REDIS_TIMEOUT_MS }) } })
    if (withRedis) await untilCacheHealthy(app)
    await beatFrom(app, 0, 2000)
    const deep = await app.inject({ url: '/health/deep', headers: await bearer({ scope: 'health:read' }) })
    const details = deep.json().checks.workers.details as Record<string, unknown>
    t.equal(details.instances, 300, 'the newest 300 are kept')
    t.notOk('mailer/worker-0' in details, 'the first, silent the longest, is gone')
    t.ok(Object.keys(details).length <= 52, `/health/deep lists a bounded number of them (${Object.keys(details).length} keys)`)
    t.ok(deep.body.length < 10_000, `and stays small (${deep.body.length} bytes)`)
  })
}
