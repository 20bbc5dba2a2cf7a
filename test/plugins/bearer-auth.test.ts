import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { SignJWT, generateKeyPair } from 'jose'
import { bearer, build, mintToken, sharedApp, TEST_JWT_SECRET } from '../helper.ts'

const REALM = 'recrutamento-api'
const FORM = 'application/x-www-form-urlencoded'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async request => ({
    sub: request.principal?.sub,
    scopes: [...request.principal?.scopes ?? []].sort(),
    source: request.tokenSource
  }))
  app.get('/both', { config: { scopes: ['vagas:read', 'vagas:write'] } }, async () => ({ ok: true }))
  app.post('/secrets', {
    config: { scopes: ['vagas:write'] },
    schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) }
  }, async request => ({ body: request.body }))
  app.get('/maybe', { config: { auth: 'optional' } }, async request => ({ sub: request.principal?.sub ?? null }))
  app.get('/cached', { config: { scopes: ['vagas:read'], cacheable: true } }, async (_request, reply) => {
    return reply.header('cache-control', 'public, max-age=60').send({ ok: true })
  })
  app.get('/open', { config: { public: true } }, async request => ({ principal: request.principal ?? null }))
  app.get('/undeclared', async request => ({ sub: request.principal?.sub ?? null }))
}

// The tests on the default settings share one app: none changes its settings or state.
const shared = sharedApp({ extraRoutes: routes })

function challengeOf (res: { headers: Record<string, unknown> }): string {
  return String(res.headers['www-authenticate'])
}

t.test('no credentials: 401 with a bare realm challenge and a problem body', async t => {
  const app = await shared()
  const res = await app.inject({ method: 'GET', url: '/secrets' })
  t.equal(res.statusCode, 401)
  t.equal(challengeOf(res), `Bearer realm="${REALM}"`)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  t.match(res.json(), { status: 401, code: 'TokenRequired', instance: '/secrets' })
})

t.test('credentials of another scheme are no bearer token: 401 with no error attribute', async t => {
  const app = await shared()
  for (const authorization of ['Basic dXNlcjpwYXNz', 'Digest username="x"', 'Token abc']) {
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization } })
    t.equal(res.statusCode, 401, authorization)
    t.equal(challengeOf(res), `Bearer realm="${REALM}"`, authorization)
  }
})

t.test('a valid token in the header is accepted, whatever the case of the scheme name', async t => {
  const app = await shared()
  const token = await mintToken({ scope: 'vagas:read candidatos:read', sub: 'ana' })
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `${scheme} ${token}` } })
    t.equal(res.statusCode, 200, scheme)
    t.same(res.json(), { sub: 'ana', scopes: ['candidatos:read', 'vagas:read'], source: 'header' })
  }
})

t.test('the scp claim also grants scopes', async t => {
  const app = await shared()
  const res = await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ claims: { scp: ['vagas:read'] } }) })
  t.equal(res.statusCode, 200)
  t.same(res.json().scopes, ['vagas:read'])
})

t.test('a token in the query string is accepted and its answer is not cached', async t => {
  const app = await shared()
  const token = await mintToken({ scope: 'vagas:read' })
  const res = await app.inject({ method: 'GET', url: `/secrets?access_token=${token}` })
  t.equal(res.statusCode, 200)
  t.equal(res.json().source, 'query')
  t.match(res.headers['cache-control'], /private|no-store/)
  const cached = await app.inject({ method: 'GET', url: `/cached?access_token=${token}` })
  t.equal(cached.statusCode, 200)
  t.match(cached.headers['cache-control'], /private/, 'even a cacheable route answers privately')
  const viaHeader = await app.inject({ method: 'GET', url: '/cached', headers: { authorization: `Bearer ${token}` } })
  t.equal(viaHeader.headers['cache-control'], 'public, max-age=60', 'the route keeps its own caching for header tokens')
})

t.test('AUTH_QUERY_TOKEN=false refuses a query token with invalid_request', async t => {
  const app = await build(t, { env: { AUTH_QUERY_TOKEN: 'false' }, extraRoutes: routes })
  const token = await mintToken({ scope: 'vagas:read' })
  const res = await app.inject({ method: 'GET', url: `/secrets?access_token=${token}` })
  t.equal(res.statusCode, 400)
  t.match(challengeOf(res), /^Bearer realm="recrutamento-api", error="invalid_request", error_description="[^"]+"$/)
  t.notMatch(res.body, token)
})

t.test('a token in a form body is accepted and removed from the body the handler sees', async t => {
  const app = await shared()
  const token = await mintToken({ scope: 'vagas:write' })
  const res = await app.inject({ method: 'POST', url: '/secrets', headers: { 'content-type': FORM }, payload: `name=ana&access_token=${token}` })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { body: { name: 'ana' } })
})

t.test('a form body with no token on a protected route is 401, before body validation', async t => {
  const app = await shared()
  const res = await app.inject({ method: 'POST', url: '/secrets', headers: { 'content-type': FORM }, payload: 'unexpected=1' })
  t.equal(res.statusCode, 401)
  t.equal(challengeOf(res), `Bearer realm="${REALM}"`)
})

t.test('a token in more than one place is 400 invalid_request, for every pair', async t => {
  const app = await shared()
  const token = await mintToken({ scope: 'vagas:read vagas:write' })
  const cases = [
    { name: 'header + query', headers: { authorization: `Bearer ${token}` }, url: `/secrets?access_token=${token}`, method: 'GET' as const },
    { name: 'header + body', headers: { authorization: `Bearer ${token}`, 'content-type': FORM }, url: '/secrets', method: 'POST' as const, payload: `name=a&access_token=${token}` },
    { name: 'query + body', headers: { 'content-type': FORM }, url: `/secrets?access_token=${token}`, method: 'POST' as const, payload: `name=a&access_token=${token}` },
    { name: 'all three', headers: { authorization: `Bearer ${token}`, 'content-type': FORM }, url: `/secrets?access_token=${token}`, method: 'POST' as const, payload: `name=a&access_token=${token}` },
    { name: 'query twice', headers: {}, url: `/secrets?access_token=${token}&access_token=${token}`, method: 'GET' as const }
  ]
  for (const c of cases) {
    const res = await app.inject({ method: c.method, url: c.url, headers: c.headers, payload: c.payload })
    t.equal(res.statusCode, 400, c.name)
    t.match(challengeOf(res), /^Bearer realm="recrutamento-api", error="invalid_request", error_description="[\x20\x21\x23-\x5B\x5D-\x7E]+"$/, c.name)
    t.match(res.json(), { status: 400, code: 'InvalidAuthRequest' }, c.name)
    t.notMatch(res.body, token, c.name)
  }
})

t.test('the Bearer scheme with no token is 400 invalid_request', async t => {
  const app = await shared()
  for (const authorization of ['Bearer', 'Bearer ', 'bearer    ']) {
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization } })
    t.equal(res.statusCode, 400, JSON.stringify(authorization))
    t.match(challengeOf(res), /error="invalid_request"/)
  }
})

t.test('each invalid-token cause answers 401 invalid_token with its own fixed description', async t => {
  const app = await build(t, { env: { AUTH_ISSUER: 'https://issuer.test', AUTH_AUDIENCE: 'recrutamento' }, extraRoutes: routes })
  const now = Math.floor(Date.now() / 1000)
  const good = { scope: 'vagas:read', iss: 'https://issuer.test', aud: 'recrutamento' }
  const valid = await mintToken(good)
  const [head, body] = valid.split('.')
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${body}.`
  const rsa = await generateKeyPair('RS256')
  const cases: Array<[string, string, string]> = [
    ['not b64token', 'abc def"', 'The access token is malformed'],
    ['not a JWT', 'opaque-token-value', 'The access token is malformed'],
    ['bad JSON', 'aaaa.bbbb.cccc', 'The access token is malformed'],
    ['bad signature', `${head}.${body}.${'A'.repeat(43)}`, 'The access token signature is invalid'],
    ['other secret', await mintToken({ ...good, key: new TextEncoder().encode('another-secret-another-secret-another-secret') }), 'The access token signature is invalid'],
    ['alg none', unsigned, 'The access token algorithm is not accepted'],
    ['HS384', await mintToken({ ...good, alg: 'HS384' }), 'The access token algorithm is not accepted'],
    ['RS256 for an HS key', await mintToken({ ...good, alg: 'RS256', key: rsa.privateKey }), 'The access token algorithm is not accepted'],
    ['expired', await mintToken({ ...good, exp: now - 60 }), 'The access token has expired'],
    ['not yet valid', await mintToken({ ...good, nbf: now + 600 }), 'The access token is not valid yet'],
    ['wrong issuer', await mintToken({ ...good, iss: 'https://evil.test' }), 'The access token issuer is not accepted'],
    ['no issuer', await mintToken({ ...good, iss: undefined }), 'The access token issuer is not accepted'],
    ['wrong audience', await mintToken({ ...good, aud: 'other' }), 'The access token audience is not accepted'],
    ['NUL in sub', await mintToken({ ...good, sub: 'a\u0000b' }), 'The access token names its subject, client or id with a character this service cannot store'],
    ['NUL in client_id', await mintToken({ ...good, claims: { client_id: 'app\u0000' } }), 'The access token names its subject, client or id with a character this service cannot store'],
    ['no exp', await new SignJWT({ scope: 'vagas:read', iss: 'https://issuer.test', aud: 'recrutamento' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(TEST_JWT_SECRET)), 'The access token lacks a required claim']
  ]
  for (const [name, token, description] of cases) {
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${token}` } })
    t.equal(res.statusCode, 401, name)
    t.equal(challengeOf(res), `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`, name)
    t.match(res.json(), { status: 401, code: 'InvalidToken', detail: `${description}.` }, name)
    t.notMatch(res.body, token.slice(0, 20), `${name}: the body never echoes the token`)
  }
  const ok = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${valid}` } })
  t.equal(ok.statusCode, 200, 'the well-formed token passes the same checks')
  const audList = await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ ...good, aud: ['x', 'recrutamento'] }) })
  t.equal(audList.statusCode, 200, 'one matching audience in a list is enough')
})

t.test('clock tolerance: a token expired a moment ago still passes, one expired long ago does not', async t => {
  const app = await build(t, { env: { AUTH_CLOCK_TOLERANCE: '30' }, extraRoutes: routes })
  const now = Math.floor(Date.now() / 1000)
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read', exp: now - 10 }) })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({ scope: 'vagas:read', exp: now - 60 }) })).statusCode, 401)
})

t.test('a valid token without a required scope: 403 insufficient_scope naming the scopes', async t => {
  const app = await shared()
  const res = await app.inject({ method: 'GET', url: '/both', headers: await bearer({ scope: 'vagas:read candidatos:write' }) })
  t.equal(res.statusCode, 403)
  t.equal(challengeOf(res), `Bearer realm="${REALM}", error="insufficient_scope", scope="vagas:read vagas:write"`)
  t.match(res.json(), { status: 403, code: 'InsufficientScope', requiredScopes: ['vagas:read', 'vagas:write'] })
  const noScope = await app.inject({ method: 'GET', url: '/secrets', headers: await bearer({}) })
  t.equal(noScope.statusCode, 403)
  const both = await app.inject({ method: 'GET', url: '/both', headers: await bearer({ scope: 'vagas:write vagas:read' }) })
  t.equal(both.statusCode, 200)
})

t.test('optional authentication: anonymous passes, a valid token names the caller, a bad one is refused', async t => {
  const app = await shared()
  t.same((await app.inject({ method: 'GET', url: '/maybe' })).json(), { sub: null })
  t.same((await app.inject({ method: 'GET', url: '/maybe', headers: await bearer({ sub: 'rui' }) })).json(), { sub: 'rui' })
  const bad = await app.inject({ method: 'GET', url: '/maybe', headers: { authorization: 'Bearer not.a.jwt' } })
  t.equal(bad.statusCode, 401)
  t.match(challengeOf(bad), /error="invalid_token"/)
})

t.test('routes that declare nothing require a valid token (deny by default)', async t => {
  const app = await build(t, { extraRoutes: routes, guardExtraRoutes: true })
  const anonymous = await app.inject({ method: 'GET', url: '/undeclared' })
  t.equal(anonymous.statusCode, 401)
  t.equal(challengeOf(anonymous), `Bearer realm="${REALM}"`)
  t.match(anonymous.json(), { status: 401, code: 'TokenRequired' })
  const forged = await app.inject({ method: 'GET', url: '/undeclared', headers: { authorization: 'Bearer not.a.jwt' } })
  t.equal(forged.statusCode, 401)
  const res = await app.inject({ method: 'GET', url: '/undeclared', headers: await bearer({ sub: 'client-1' }) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { sub: 'client-1' })
})

t.test('routes that say public answer without a token and see no principal, even with one', async t => {
  const app = await shared()
  t.equal((await app.inject({ method: 'GET', url: '/open' })).statusCode, 200)
  const res = await app.inject({ method: 'GET', url: '/open', headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { principal: null })
  t.equal((await app.inject({ method: 'GET', url: '/ping' })).statusCode, 200)
})

t.test('HEAD on a protected GET route is protected too', async t => {
  const app = await shared()
  t.equal((await app.inject({ method: 'HEAD', url: '/secrets' })).statusCode, 401)
  t.equal((await app.inject({ method: 'HEAD', url: '/secrets', headers: await bearer({ scope: 'vagas:read' }) })).statusCode, 200)
})

t.test('declared scopes become the route schema\'s OpenAPI security requirement', async t => {
  const seen: Record<string, unknown> = {}
  const app = await build(t, {
    extraRoutes: scope => {
      scope.addHook('onRoute', route => { if (route.method === 'GET') seen[route.url] = route.schema?.security })
      routes(scope)
    }
  })
  t.ok(app)
  t.same(seen['/secrets'], [{ oauth2: ['vagas:read'] }, { bearerAuth: [] }])
  t.same(seen['/maybe'], [{}, { oauth2: [] }, { bearerAuth: [] }], 'optional: anonymous is an alternative')
  t.equal(seen['/open'], undefined)
})
