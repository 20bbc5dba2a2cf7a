import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { build, mintToken } from '../helper.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
}

for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA']) {
  t.test(`AUTH_PUBLIC_KEY_FILE with a ${alg} key verifies ${alg} tokens and refuses algorithm confusion`, async t => {
    const pair = await generateKeyPair(alg, { extractable: true })
    const pem = await exportSPKI(pair.publicKey)
    const file = join(t.testdir(), 'public.pem')
    writeFileSync(file, pem)
    const app = await build(t, { env: { AUTH_JWT_SECRET: '', AUTH_PUBLIC_KEY_FILE: file, NODE_ENV: 'production' }, extraRoutes: routes })
    const good = await mintToken({ scope: 'vagas:read', alg, key: pair.privateKey })
    t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${good}` } })).statusCode, 200)
    // HS256 keyed with the public key's PEM: accepted by verifiers that let the token pick the algorithm.
    const confused = await mintToken({ scope: 'vagas:read', alg: 'HS256', key: new TextEncoder().encode(pem) })
    const res = await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${confused}` } })
    t.equal(res.statusCode, 401)
    t.match(res.headers['www-authenticate'], /error_description="The access token algorithm is not accepted"/)
  })
}

t.test('a private key or a second key setting is refused at start', async t => {
  const pair = await generateKeyPair('ES256', { extractable: true })
  const dir = t.testdir()
  const privateFile = join(dir, 'private.pem')
  writeFileSync(privateFile, await exportPKCS8(pair.privateKey))
  await t.rejects(build(t, { env: { AUTH_JWT_SECRET: '', AUTH_PUBLIC_KEY_FILE: privateFile } }), { name: 'ConfigError', message: /private key/ })
  const publicFile = join(dir, 'public.pem')
  writeFileSync(publicFile, await exportSPKI(pair.publicKey))
  await t.rejects(build(t, { env: { AUTH_PUBLIC_KEY_FILE: publicFile } }), { name: 'ConfigError', message: /Set only one of AUTH_JWT_SECRET, AUTH_PUBLIC_KEY_FILE/ })
  await t.rejects(build(t, { env: { AUTH_JWT_SECRET: '', AUTH_PUBLIC_KEY_FILE: join(dir, 'missing.pem') } }), { name: 'ConfigError', message: /AUTH_PUBLIC_KEY_FILE cannot be read/ })
})
