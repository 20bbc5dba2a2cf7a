import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'

function routes (app: FastifyInstance): void {
  app.get('/vagas', { config: { scopes: ['vagas:read'] } }, async () => [])
  app.post('/vagas', { config: { scopes: ['vagas:write'] } }, async () => ({}))
}

t.test('RFC 9728 metadata lists the resource, issuer, declared scopes and bearer methods', async t => {
  const app = await build(t, { env: { AUTH_RESOURCE_URL: 'https://api.example.test', AUTH_ISSUER: 'https://login.example.test' }, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(res.json(), {
    resource: 'https://api.example.test',
    authorization_servers: ['https://login.example.test'],
    scopes_supported: ['candidatos:read', 'candidatos:write', 'eventos:read', 'health:read', 'heartbeat:write', 'metrics:read', 'tokens:revoke', 'vagas:read', 'vagas:write', 'webhooks:write'],
    bearer_methods_supported: ['header', 'body', 'query']
  })
  t.match(res.headers['cache-control'], /max-age/, 'metadata may be cached')
})

t.test('with AUTH_RESOURCE_URL, 401 challenges point at the metadata', async t => {
  const app = await build(t, { env: { AUTH_RESOURCE_URL: 'https://api.example.test' }, extraRoutes: routes })
  const missing = await app.inject({ method: 'GET', url: '/vagas' })
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="recrutamento-api", resource_metadata="https://api.example.test/.well-known/oauth-protected-resource"')
  const invalid = await app.inject({ method: 'GET', url: '/vagas', headers: { authorization: 'Bearer x.y.z' } })
  t.match(invalid.headers['www-authenticate'], /error="invalid_token", error_description="[^"]+", resource_metadata="https:\/\/api\.example\.test\/\.well-known\/oauth-protected-resource"$/)
})

t.test('without AUTH_RESOURCE_URL the resource is the origin the client used, and query tokens off are not offered', async t => {
  const app = await build(t, { env: { AUTH_QUERY_TOKEN: 'false' }, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource', headers: { host: 'localhost:3000' } })
  t.match(res.json(), { resource: 'http://localhost:3000', bearer_methods_supported: ['header', 'body'] })
  t.notOk('authorization_servers' in res.json())
  t.equal((await app.inject({ method: 'GET', url: '/vagas' })).headers['www-authenticate'], 'Bearer realm="recrutamento-api"')
})
