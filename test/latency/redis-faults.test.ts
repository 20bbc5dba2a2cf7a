import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startOwnRedis, type OwnRedis } from '../support/redis-server.ts'
import { percentile, steadyLoad } from '../support/steady-load.ts'

// A business-like route beside the service's own: it needs a token, so every request is checked.
function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
}

// Health answers are not cached, so each read shows the state of the moment. Rate limiting is on
// (counted in Redis) with a budget this load never exhausts.
const ENV = { RATE_LIMIT_MAX: '1000000', HEALTH_CACHE_TTL_MS: '0', HEALTH_REFRESH_INTERVAL_MS: '200' }

// Checks on the instances while the load runs poll gently: they share this process with the load.
const POLL = { timeout: 20_000, interval: 250 }

// The bound for a client: what a Redis outage may add to a request at the 99th percentile (and what a
// single call may take). Measured against the same load before the fault, since the test machine's
// own load moves every latency: on a quiet machine the p99 before the fault is a few milliseconds.
const P99_LIMIT_MS = 250

function demand (condition: boolean, message: string): void {
  if (!condition) throw new Error(message)
}

async function revoke (app: FastifyInstance, jti: string) {
  const started = performance.now()
  const res = await app.inject({ method: 'PUT', url: `/revoked-tokens/${jti}`, headers: await bearer({ scope: 'tokens:revoke' }), payload: {} })
  return { statusCode: res.statusCode, ms: performance.now() - started }
}

async function statusWith (app: FastifyInstance, jti: string): Promise<number> {
  return (await app.inject({ url: '/secrets', headers: await bearer({ scope: 'vagas:read', jti }) })).statusCode
}

async function cacheCheck (app: FastifyInstance) {
  const res = await app.inject({ url: '/health/deep', headers: await bearer({ scope: 'health:read' }) })
  return res.json().checks.cache as { status: string, details: Record<string, unknown> }
}

/** Waits until the instance is connected to Redis and its revocation replica is live. */
/** Serving (a booting instance gives Redis the connect timeout: src/redis/boot-timeouts.ts), its cache Healthy. */
async function untilHealthy (app: FastifyInstance): Promise<void> {
  await app.health.lifecycle.reached('serving')
  await eventually(async () => {
    const cache = await cacheCheck(app)
    demand(cache.status === 'Healthy', `not healthy yet: ${JSON.stringify(cache)}`)
  }, POLL)
}

/**
 * Two instances on a Redis of the test's own, a bounded load of requests with jti tokens (one of them
 * revoked before the fault) on the first, then `fault` and `recover` while the load runs.
 */
async function outageUnderLoad (t: Test, fault: (redis: OwnRedis) => Promise<void>, recover: (redis: OwnRedis) => Promise<void>) {
  const redis = await startOwnRedis(t)
  const env = { ...ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'faults:' }
  const app = await build(t, { env, extraRoutes: routes })
  const other = await build(t, { env, extraRoutes: routes })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  await untilHealthy(app)
  await untilHealthy(other)

  const revokedJti = randomUUID()
  t.equal((await revoke(app, revokedJti)).statusCode, 200, 'revoked before the fault')
  const load = steadyLoad([
    { url: `${base}/secrets`, headers: await bearer({ scope: 'vagas:read', jti: randomUUID() }), status: 200 },
    { url: `${base}/secrets`, headers: await bearer({ scope: 'vagas:read', jti: revokedJti }), status: 401 }
  ])
  t.teardown(() => load.stop())
  // The first requests open connections and warm the code up: the comparison starts after them.
  await eventually(() => demand(load.count() >= 50, 'the load has not started'), { timeout: 30_000 })
  const warm = load.count()
  await eventually(() => demand(load.count() >= warm + 150, 'too few requests answered before the fault'), { timeout: 30_000 })

  const beforeFault = load.count()
  await fault(redis)
  await eventually(() => demand(load.count() >= beforeFault + 200, 'too few requests answered during the outage'), { timeout: 30_000 })
  t.same(load.failures().slice(0, 3), [], `the API answers as before during the outage (${load.failures().length} unexpected answers)`)
  const degraded = await eventually(async () => {
    const ready = await app.inject('/health/ready')
    const cache = await cacheCheck(app)
    demand(ready.statusCode === 200 && ready.json().status === 'Degraded' && cache.status === 'Degraded' && cache.details.revocationReplica === 'stale', `not degraded yet: ${ready.body}`)
    return { ready: ready.json(), cache }
  }, POLL)
  t.equal(degraded.ready.status, 'Degraded', 'readiness: Degraded, still 200: the API still serves every request')
  t.match(degraded.cache.details, { reachable: false, revocationReplica: 'stale', revocationReplicaAgeMs: Number }, 'the cache check reports the replica and its age')

  const lateJti = randomUUID()
  const late = await revoke(app, lateJti)
  t.equal(late.statusCode, 200, 'a revocation during the outage is accepted')
  t.ok(late.ms < P99_LIMIT_MS, `and answered in ${Math.round(late.ms)} ms`)
  t.equal(await statusWith(app, lateJti), 401, 'the instance that received it applies it at once')
  t.equal(await statusWith(other, lateJti), 200, 'the other instance cannot know it yet')
  t.equal((await cacheCheck(app)).details.unsentRevocations, 1, 'it waits to be sent to Redis')

  const outageEnd = load.count()
  await recover(redis)
  await eventually(async () => demand(await statusWith(other, lateJti) === 401, 'not refused yet'), POLL)
  t.pass('the revocation made during the outage reached the other instance once Redis was back')
  await untilHealthy(app)
  t.equal((await cacheCheck(app)).details.unsentRevocations, 0, 'nothing is left to send')

  const report = await load.stop()
  t.same(report.failures.slice(0, 3), [], `${report.failures.length} of ${report.count} answers were not as expected (200, and 401 for the revoked token)`)
  const before = percentile(report.latencies.slice(warm, beforeFault), 99)
  const during = percentile(report.latencies.slice(beforeFault, outageEnd), 99)
  t.ok(during - before < P99_LIMIT_MS, `p99 ${during.toFixed(1)} ms during the outage, ${before.toFixed(1)} ms before it, ${percentile(report.latencies, 99).toFixed(1)} ms over all ${report.count} requests`)
}

t.test('Redis stopped under load: every request answers 200 fast, a revoked token stays refused', async t => {
  await outageUnderLoad(t, redis => redis.stop(), redis => redis.start())
})

t.test('Redis frozen (SIGSTOP) under load: every request answers 200 fast, a revoked token stays refused', async t => {
  await outageUnderLoad(t, async redis => redis.freeze(), async redis => redis.thaw())
})

t.test('Redis frozen: a heartbeat and a revocation wait no longer than the command timeout', async t => {
  const redis = await startOwnRedis(t)
  const app = await build(t, { env: { ...ENV, REDIS_URL: redis.url } })
  await untilHealthy(app)
  const beat = { service: 'mailer', instanceId: 'mailer-1', status: 'alive', timestamp: new Date().toISOString() }
  const headers = await bearer({ scope: 'heartbeat:write' })
  t.equal((await app.inject({ method: 'POST', url: '/heartbeats', payload: beat, headers })).statusCode, 204, 'a heartbeat before the fault')
  t.equal((await revoke(app, randomUUID())).statusCode, 200, 'a revocation before the fault')

  redis.freeze()
  t.teardown(() => redis.thaw())
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    const res = await app.inject({ method: 'POST', url: '/heartbeats', payload: beat, headers })
    const ms = performance.now() - started
    t.equal(res.statusCode, 204, 'the heartbeat is accepted')
    t.ok(ms < P99_LIMIT_MS, `in ${Math.round(ms)} ms`)
    const revocation = await revoke(app, randomUUID())
    t.equal(revocation.statusCode, 200, 'the revocation is accepted')
    t.ok(revocation.ms < P99_LIMIT_MS, `in ${Math.round(revocation.ms)} ms`)
  }
})
