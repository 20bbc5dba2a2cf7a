import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { bearer, build, serviceUrl, uniqueRedisPrefix } from '../helper.ts'
import { API_POLL, eventually } from '../support/eventually.ts'
import { untilReadiness } from '../support/readiness.ts'
import { startOwnRedis } from '../support/redis-server.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
}

async function revokeScenario (t: Test, apps: [FastifyInstance, FastifyInstance]) {
  const [admin, other] = apps
  const jti = randomUUID()
  const user = await bearer({ scope: 'vagas:read', jti })
  t.equal((await other.inject({ method: 'GET', url: '/secrets', headers: user })).statusCode, 200, 'before revocation')

  const adminToken = await bearer({ scope: 'tokens:revoke' })
  const refused = await admin.inject({ method: 'PUT', url: `/revoked-tokens/${jti}`, headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(refused.statusCode, 403, 'revoking needs tokens:revoke')

  const expiresAt = new Date(Date.now() + 3_600_000).toISOString()
  const put = await admin.inject({ method: 'PUT', url: `/revoked-tokens/${jti}`, headers: adminToken, payload: { expiresAt } })
  t.equal(put.statusCode, 200)
  t.equal(put.json().jti, jti)
  // Another instance learns of it through Redis pub/sub, a moment later.
  const res = await eventually(async () => {
    const answer = await other.inject({ method: 'GET', url: '/secrets', headers: user })
    if (answer.statusCode !== 401) throw new Error(`answered ${answer.statusCode}`)
    return answer
  }, API_POLL)
  t.equal(res.statusCode, 401, 'after revocation')
  t.equal(res.headers['www-authenticate'], 'Bearer realm="recrutamento-api", error="invalid_token", error_description="The access token has been revoked"')
  t.equal((await admin.inject({ method: 'GET', url: `/revoked-tokens/${jti}`, headers: adminToken })).statusCode, 200)
  t.equal((await admin.inject({ method: 'GET', url: `/revoked-tokens/${randomUUID()}`, headers: adminToken })).statusCode, 404)
  const past = await admin.inject({ method: 'PUT', url: `/revoked-tokens/${randomUUID()}`, headers: adminToken, payload: { expiresAt: '2020-01-01T00:00:00Z' } })
  t.equal(past.statusCode, 400)
}

t.test('in memory: a revoked jti is refused by the same instance', async t => {
  const app = await build(t, { extraRoutes: routes })
  t.equal(app.tokenDenyList.kind, 'memory')
  await revokeScenario(t, [app, app])
})

t.test('an expiresAt the service cannot read is refused, and nothing is revoked', async t => {
  const app = await build(t)
  const headers = await bearer({ scope: 'tokens:revoke' })
  for (const expiresAt of ['2999-12-31T23:59:60Z', '9999-12-31T23:59:59-23:59']) {
    const jti = randomUUID()
    const res = await app.inject({ method: 'PUT', url: `/revoked-tokens/${jti}`, headers, payload: { expiresAt } })
    t.equal(res.statusCode, 400, `${expiresAt}: ${res.body}`)
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'body', field: '/expiresAt', message: /9999-12-31T23:59:59.999Z/ }] }, expiresAt)
    t.equal((await app.inject({ url: `/revoked-tokens/${jti}`, headers })).statusCode, 404, `${expiresAt}: not revoked`)
  }
})

t.test('in Redis: a jti revoked on one instance is refused by another', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  // About sharing, not faults: a busy test machine may hold an answer past the 100 ms default.
  const env = { REDIS_URL: url, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'revoked-tokens'), REDIS_COMMAND_TIMEOUT_MS: '5000' }
  const one = await build(t, { env, extraRoutes: routes })
  const two = await build(t, { env, extraRoutes: routes })
  t.equal(one.tokenDenyList.kind, 'redis')
  await revokeScenario(t, [one, two])
})

t.test('a new instance loads every revocation at start, and checks tokens without a Redis round trip', async t => {
  const redis = await startOwnRedis(t)
  const env = { REDIS_URL: redis.url, RATE_LIMIT_MAX: '0', HEALTH_CACHE_TTL_MS: '0', REDIS_COMMAND_TIMEOUT_MS: '5000' }
  const first = await build(t, { env, extraRoutes: routes })
  const jti = randomUUID()
  t.equal((await first.inject({ method: 'PUT', url: `/revoked-tokens/${jti}`, headers: await bearer({ scope: 'tokens:revoke' }), payload: {} })).statusCode, 200)

  const later = await build(t, { env, extraRoutes: routes })
  await untilReadiness(later)
  t.equal((await later.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read', jti }) })).statusCode, 401, 'refused by an instance started after the revocation')

  const raw = new Redis(redis.url)
  t.teardown(() => raw.disconnect())
  const processed = async (): Promise<number> => Number(/total_commands_processed:(\d+)/.exec(await raw.info('stats'))![1])
  const user = await bearer({ scope: 'vagas:read', jti: randomUUID() })
  const before = await processed()
  const statuses = new Set<number>()
  for (let i = 0; i < 50; i++) statuses.add((await later.inject({ method: 'GET', url: '/secrets', headers: user })).statusCode)
  t.same([...statuses], [200], 'every request served')
  // The count includes the two INFO calls of this test and the cache check's pings meanwhile.
  const commands = await processed() - before
  t.ok(commands < 25, `${commands} Redis commands for 50 requests with a jti token`)
})

t.test('Redis down at start: tokens with a jti are refused (503) and readiness says NotReady until the list is loaded', async t => {
  const redis = await startOwnRedis(t)
  await redis.stop()
  const app = await build(t, { env: { REDIS_URL: redis.url, HEALTH_CACHE_TTL_MS: '0', HEALTH_REFRESH_INTERVAL_MS: '200' }, extraRoutes: routes })
  const withJti = await bearer({ scope: 'vagas:read', jti: randomUUID() })
  const refused = await app.inject({ method: 'GET', url: '/secrets', headers: withJti })
  t.equal(refused.statusCode, 503, 'a revoked token cannot be told from a good one yet')
  t.match(refused.json(), { code: 'TokenCheckUnavailable' })
  t.notMatch(refused.body, /127\.0\.0\.1|redis/i)
  const ready = await app.inject('/health/ready')
  t.equal(ready.statusCode, 503, 'readiness agrees: no traffic is sent to this instance')
  t.equal(ready.json().checks.revocations, 'NotReady')
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read' }) })).statusCode, 200, 'a token without a jti is unaffected')

  await redis.start()
  await untilReadiness(app)
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: withJti })).statusCode, 200, 'served once the list is loaded')
})

t.test('a revocation that reached Redis without its pub/sub message is picked up by the periodic reload', async t => {
  const redis = await startOwnRedis(t)
  const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'resync:', REVOCATION_RESYNC_INTERVAL_MS: '1000', REDIS_COMMAND_TIMEOUT_MS: '5000', HEALTH_CACHE_TTL_MS: '0' }
  const app = await build(t, { env, extraRoutes: routes })
  await untilReadiness(app)
  const jti = randomUUID()
  const user = await bearer({ scope: 'vagas:read', jti })
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: user })).statusCode, 200)

  const raw = new Redis(redis.url)
  t.teardown(() => raw.disconnect())
  await raw.zadd('resync:revoked-jtis', Math.floor(Date.now() / 1000) + 3600, jti)
  await eventually(async () => {
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: user })
    if (res.statusCode !== 401) throw new Error(`answered ${res.statusCode}`)
  }, { timeout: 15_000 })
  t.pass('refused after the next reload')
})
