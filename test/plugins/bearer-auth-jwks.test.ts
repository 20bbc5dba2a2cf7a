import t from 'tap'
import assert from 'node:assert/strict'
import { createPrivateKey, type JsonWebKey } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { exportJWK, generateKeyPair, type JWK } from 'jose'
import { build, mintToken } from '../helper.ts'
import { localServer, sendJson } from '../local-server.ts'
import { eventually } from '../support/eventually.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async request => ({ sub: request.principal?.sub }))
}

async function signingKey (alg: string, kid: string) {
  const pair = await generateKeyPair(alg, { extractable: true })
  const jwk: JWK = { ...await exportJWK(pair.publicKey), kid, use: 'sig' }
  return { privateKey: pair.privateKey, jwk, alg, kid }
}

type Key = Awaited<ReturnType<typeof signingKey>>

async function jwksServer (t: Parameters<typeof build>[0], keys: { current: Key[] }) {
  return localServer(t, (_req, _body, res) => sendJson(res, 200, { keys: keys.current.map(key => key.jwk) }))
}

function get (app: FastifyInstance, token: string) {
  return app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${token}` } })
}

t.test('tokens signed by each JWKS key type are accepted; the set is fetched once', async t => {
  const keys = { current: await Promise.all([signingKey('RS256', 'rsa'), signingKey('PS256', 'pss'), signingKey('ES256', 'ec'), signingKey('EdDSA', 'ed')]) }
  const server = await jwksServer(t, keys)
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json` }, extraRoutes: routes })
  for (const key of keys.current) {
    const token = await mintToken({ scope: 'vagas:read', sub: key.kid, alg: key.alg, key: key.privateKey, header: { kid: key.kid } })
    const res = await get(app, token)
    t.equal(res.statusCode, 200, key.alg)
    t.same(res.json(), { sub: key.kid })
  }
  t.equal(server.hits, 1, 'one fetch served every key')
})

t.test('algorithms are pinned per key: a token naming another algorithm for the kid is refused', async t => {
  const rsa = await signingKey('RS256', 'rsa')
  const server = await jwksServer(t, { current: [{ ...rsa, jwk: { ...rsa.jwk, alg: 'RS256' } }] })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json` }, extraRoutes: routes })
  // The same RSA key material signing PS256 (jose's CryptoKey is bound to one algorithm; a KeyObject is not).
  const rsaKeyObject = createPrivateKey({ key: await exportJWK(rsa.privateKey) as JsonWebKey, format: 'jwk' })
  const ps = await mintToken({ scope: 'vagas:read', alg: 'PS256', key: rsaKeyObject, header: { kid: 'rsa' } })
  t.match((await get(app, ps)).headers['www-authenticate'], /error_description="The access token algorithm is not accepted"/, 'PS256 with an RS256-only key')
  // HS256 signed with the public key's text as a secret: the classic confusion attack.
  const pem = JSON.stringify(rsa.jwk)
  const hs = await mintToken({ scope: 'vagas:read', alg: 'HS256', key: new TextEncoder().encode(pem), header: { kid: 'rsa' } })
  t.match((await get(app, hs)).headers['www-authenticate'], /error="invalid_token", error_description="The access token algorithm is not accepted"/)
})

t.test('key rotation: a token with a new kid makes one fetch and is accepted', async t => {
  const first = await signingKey('ES256', 'k1')
  const second = await signingKey('ES256', 'k2')
  const keys = { current: [first] }
  const server = await jwksServer(t, keys)
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_JWKS_COOLDOWN: '1' }, extraRoutes: routes })
  t.equal((await get(app, await mintToken({ scope: 'vagas:read', alg: 'ES256', key: first.privateKey, header: { kid: 'k1' } }))).statusCode, 200)
  t.equal(server.hits, 1)
  keys.current = [first, second]
  // Refused inside the cool-down since the first fetch (without fetching), accepted once it has passed.
  const rotated = await mintToken({ scope: 'vagas:read', alg: 'ES256', key: second.privateKey, header: { kid: 'k2' } })
  await eventually(async () => { assert.equal((await get(app, rotated)).statusCode, 200, 'the new key is picked up') }, { interval: 100 })
  t.equal(server.hits, 2, 'by exactly one more fetch')
})

t.test('a storm of unknown kids makes at most one fetch per cool-down', async t => {
  const known = await signingKey('ES256', 'known')
  const stranger = await signingKey('ES256', 'x')
  const server = await jwksServer(t, { current: [known] })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_JWKS_COOLDOWN: '60' }, extraRoutes: routes })
  t.equal((await get(app, await mintToken({ scope: 'vagas:read', alg: 'ES256', key: known.privateKey, header: { kid: 'known' } }))).statusCode, 200)
  const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => mintToken({ scope: 'vagas:read', alg: 'ES256', key: stranger.privateKey, header: { kid: `unknown-${i}` } })))
  const answers = await Promise.all(tokens.map(token => get(app, token)))
  for (const res of answers) {
    if (res.statusCode !== 401 || !/error_description="The access token signing key is unknown"/.test(String(res.headers['www-authenticate']))) {
      t.fail(`unexpected answer ${res.statusCode} ${res.headers['www-authenticate']}`)
    }
  }
  t.pass('every unknown kid answered 401 invalid_token')
  t.equal(server.hits, 1, 'the initial fetch only: inside the cool-down no unknown kid fetches')
})

t.test('unknown kids right after the cool-down share one fetch (single flight)', async t => {
  const known = await signingKey('ES256', 'known')
  const server = await jwksServer(t, { current: [known] })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_JWKS_COOLDOWN: '1' }, extraRoutes: routes })
  t.equal((await get(app, await mintToken({ scope: 'vagas:read', alg: 'ES256', key: known.privateKey, header: { kid: 'known' } }))).statusCode, 200)
  // A fixed wait on purpose: the cool-down passing is the behaviour under test, and any probe would fetch.
  await new Promise(resolve => setTimeout(resolve, 1_100))
  const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => mintToken({ scope: 'vagas:read', alg: 'ES256', key: known.privateKey, header: { kid: `new-${i}` } })))
  await Promise.all(tokens.map(token => get(app, token)))
  t.equal(server.hits, 2, '50 concurrent unknown kids: one more fetch')
})

t.test('a JWKS server that is down answers 503 with the configured Retry-After, not invalid_token, and says nothing internal', async t => {
  const server = await localServer(t, (_req, _body, res) => { res.writeHead(500); res.end('boom') })
  const key = await signingKey('ES256', 'k')
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json`, RETRY_AFTER_SECONDS: '13' }, extraRoutes: routes })
  const res = await get(app, await mintToken({ scope: 'vagas:read', alg: 'ES256', key: key.privateKey, header: { kid: 'k' } }))
  t.equal(res.statusCode, 503)
  t.match(res.json(), { code: 'TokenCheckUnavailable' })
  t.equal(res.headers['retry-after'], '13', 'RETRY_AFTER_SECONDS')
  t.notMatch(res.body, /127\.0\.0\.1|jwks/)
})

t.test('a key server that goes down keeps its last set in use past the max age', async t => {
  const key = await signingKey('ES256', 'k')
  let up = true
  const server = await localServer(t, (_req, _body, res) => {
    if (up) sendJson(res, 200, { keys: [key.jwk] })
    else { res.writeHead(500); res.end('down') }
  })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json`, AUTH_JWKS_MAX_AGE: '10' }, extraRoutes: routes })
  let n = 0
  // A new token each time: a verified token is remembered and would not look for its key again.
  const fresh = () => mintToken({ scope: 'vagas:read', sub: `u${n++}`, alg: 'ES256', key: key.privateKey, header: { kid: 'k' } })
  t.equal((await get(app, await fresh())).statusCode, 200)
  up = false
  // Past the max age a request fetches again; the fetch fails and the last set answers it.
  await eventually(async () => {
    const res = await get(app, await fresh())
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(server.hits >= 2, 'the set was due again')
  }, { interval: 500 })
  t.pass('accepted with the last set while the key server is down')
})

t.test('jku and x5u in a token are ignored: keys come only from the configured URL', async t => {
  const known = await signingKey('ES256', 'k')
  const attacker = await signingKey('ES256', 'evil')
  const server = await jwksServer(t, { current: [known] })
  const evil = await jwksServer(t, { current: [attacker] })
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_JWKS_URL: `${server.url}/jwks.json` }, extraRoutes: routes })
  const token = await mintToken({ scope: 'vagas:read', alg: 'ES256', key: attacker.privateKey, header: { kid: 'evil', jku: `${evil.url}/jwks.json`, x5u: `${evil.url}/cert` } })
  t.equal((await get(app, token)).statusCode, 401)
  t.equal(evil.hits, 0, 'the attacker\'s server was never asked')
})
