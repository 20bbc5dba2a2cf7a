import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { bearer, build, serviceUrl, uniqueRedisPrefix } from '../helper.js'
import { closedPort } from '../support/closed-port.js'

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
  const res = await other.inject({ method: 'GET', url: '/secrets', headers: user })
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

t.test('in Redis: a jti revoked on one instance is refused by another', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const env = { REDIS_URL: url, REDIS_KEY_PREFIX: uniqueRedisPrefix('revoked-tokens') }
  const one = await build(t, { env, extraRoutes: routes })
  const two = await build(t, { env, extraRoutes: routes })
  t.equal(one.tokenDenyList.kind, 'redis')
  await revokeScenario(t, [one, two])
})

t.test('when Redis cannot answer, a token with a jti is not trusted (503) and one without is unaffected', async t => {
  const port = await closedPort()
  const app = await build(t, { env: { REDIS_URL: `redis://127.0.0.1:${port}` }, extraRoutes: routes })
  const withJti = await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read', jti: randomUUID() }) })
  t.equal(withJti.statusCode, 503)
  t.match(withJti.json(), { code: 'TokenCheckUnavailable' })
  t.notMatch(withJti.body, /127\.0\.0\.1|redis/i)
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read' }) })).statusCode, 200)
})
