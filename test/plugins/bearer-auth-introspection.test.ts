import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer } from '../helper.ts'
import { localServer, sendJson } from '../local-server.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async request => ({ sub: request.principal?.sub, client: request.principal?.clientId }))
}

interface Seen { authorization?: string, form: URLSearchParams }

async function introspectionServer (t: Parameters<typeof build>[0], answers: Record<string, Record<string, unknown>>) {
  const seen: Seen[] = []
  const server = await localServer(t, (req, body, res) => {
    const form = new URLSearchParams(body)
    seen.push({ authorization: req.headers.authorization, form })
    if (req.method !== 'POST' || req.url !== '/introspect') return sendJson(res, 404, {})
    sendJson(res, 200, answers[form.get('token') ?? ''] ?? { active: false })
  })
  return { server, seen }
}

const future = () => Math.floor(Date.now() / 1000) + 600

t.test('an opaque token is checked by introspection with client credentials, and the answer is reused', async t => {
  const { server, seen } = await introspectionServer(t, {
    'opaque-abc': { active: true, scope: 'vagas:read', sub: 'ana', client_id: 'portal', exp: future() }
  })
  const app = await build(t, {
    env: { AUTH_INTROSPECTION_URL: `${server.url}/introspect`, AUTH_INTROSPECTION_CLIENT_ID: 'recrutamento api', AUTH_INTROSPECTION_CLIENT_SECRET: 's3cr:et' },
    extraRoutes: routes
  })
  const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-abc' } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { sub: 'ana', client: 'portal' })
  t.equal(seen.length, 1)
  t.equal(seen[0]!.form.get('token'), 'opaque-abc')
  t.equal(seen[0]!.form.get('token_type_hint'), 'access_token')
  t.equal(seen[0]!.authorization, `Basic ${Buffer.from('recrutamento+api:s3cr%3Aet').toString('base64')}`, 'RFC 6749 2.3.1 encoding')
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-abc' } })).statusCode, 200)
  t.equal(seen.length, 1, 'the second request used the cached answer')

  const jwt = await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(jwt.statusCode, 200, 'JWTs are still verified locally when a key is configured')
  t.equal(seen.length, 1)
})

t.test('active:false, expired answers and scope shortfalls map to the RFC 6750 errors', async t => {
  const { server } = await introspectionServer(t, {
    'opaque-expired': { active: true, scope: 'vagas:read', exp: Math.floor(Date.now() / 1000) - 5 },
    'opaque-weak': { active: true, scope: 'candidatos:read', sub: 'rui', exp: future() }
  })
  const app = await build(t, { env: { AUTH_INTROSPECTION_URL: `${server.url}/introspect` }, extraRoutes: routes })
  const inactive = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-revoked' } })
  t.equal(inactive.statusCode, 401)
  t.equal(inactive.headers['www-authenticate'], 'Bearer realm="recrutamento-api", error="invalid_token", error_description="The access token is not active"')
  const expired = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-expired' } })
  t.match(expired.headers['www-authenticate'], /error_description="The access token has expired"/)
  const weak = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-weak' } })
  t.equal(weak.statusCode, 403)
})

t.test('with introspection as the only source, JWT-shaped tokens are introspected too', async t => {
  const token = 'aaa.bbb.ccc'
  const { server, seen } = await introspectionServer(t, { [token]: { active: true, scope: 'vagas:read', sub: 'rui', exp: future() } })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_INTROSPECTION_URL: `${server.url}/introspect`, NODE_ENV: 'production' }, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${token}` } })
  t.equal(res.statusCode, 200, 'production starts with introspection alone')
  t.equal(seen.length, 1)
})

t.test('an introspection endpoint that fails answers 503', async t => {
  const server = await localServer(t, (_req, _body, res) => { res.writeHead(502); res.end() })
  const app = await build(t, { env: { AUTH_INTROSPECTION_URL: `${server.url}/introspect` }, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-x' } })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { code: 'TokenCheckUnavailable' })
})

t.test('the issuer and audience rules apply to introspected tokens too', async t => {
  const { server } = await introspectionServer(t, { 'opaque-other': { active: true, scope: 'vagas:read', iss: 'https://other', exp: future() } })
  const app = await build(t, { env: { AUTH_INTROSPECTION_URL: `${server.url}/introspect`, AUTH_ISSUER: 'https://issuer.test' }, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: 'Bearer opaque-other' } })
  t.match(res.headers['www-authenticate'], /error_description="The access token issuer is not accepted"/)
})
