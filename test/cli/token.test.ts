import t from 'tap'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { build, TEST_JWT_SECRET } from '../helper.ts'
import { compiledEntry, withoutTestHooks } from '../support/compiled-service.ts'
import { emptyDataDir } from '../support/pglite-template.ts'

const root = join(import.meta.dirname, '../..')
const tokenCli = await compiledEntry('src/cli/token.js')

function runTokenCli (args: string[], env: Record<string, string>) {
  const result = spawnSync(...withoutTestHooks(process.execPath, [tokenCli, ...args]), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', ...env },
    encoding: 'utf8'
  })
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr }
}

function routes (app: FastifyInstance): void {
  app.get('/vagas', { config: { scopes: ['vagas:read'] } }, async request => ({ sub: request.principal?.sub }))
  app.post('/vagas', { config: { scopes: ['vagas:write'] } }, async () => ({ ok: true }))
}

t.test('the token CLI prints a token that the service started with the same DATA_DIR accepts', async t => {
  const dataDir = emptyDataDir(t)
  const cli = runTokenCli(['--scope', 'vagas:read vagas:write', '--ttl', '15m'], { DATA_DIR: dataDir })
  t.equal(cli.status, 0, cli.stderr)
  const claims = decodeJwt(cli.stdout)
  t.equal(decodeProtectedHeader(cli.stdout).alg, 'HS256')
  t.equal(claims.scope, 'vagas:read vagas:write')
  t.equal(claims.exp! - claims.iat!, 900, '--ttl 15m')
  t.ok(claims.jti, 'a jti, so the token can be revoked')

  const app = await build(t, { env: { AUTH_JWT_SECRET: '', DATA_DIR: dataDir, NODE_ENV: 'development' }, extraRoutes: routes })
  const headers = { authorization: `Bearer ${cli.stdout}` }
  t.equal((await app.inject({ method: 'GET', url: '/vagas', headers })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/vagas', headers })).statusCode, 200)
})

t.test('with AUTH_JWT_SECRET, AUTH_ISSUER and AUTH_AUDIENCE the token carries what the service requires', async t => {
  const env = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_ISSUER: 'https://issuer.test', AUTH_AUDIENCE: 'recrutamento', DATA_DIR: emptyDataDir(t) }
  const cli = runTokenCli(['--scope', 'vagas:read', '--sub', 'ana'], env)
  t.equal(cli.status, 0, cli.stderr)
  const app = await build(t, { env, extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/vagas', headers: { authorization: `Bearer ${cli.stdout}` } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { sub: 'ana' })
})

t.test('bad arguments and production without a secret fail with a message and exit code 1', async t => {
  const bad = runTokenCli(['--ttl', 'forever'], { DATA_DIR: emptyDataDir(t) })
  t.equal(bad.status, 1)
  t.match(bad.stderr, /--ttl/)
  t.equal(bad.stdout, '')
  const prod = runTokenCli([], { DATA_DIR: t.testdir(), NODE_ENV: 'production' })
  t.equal(prod.status, 1)
  t.match(prod.stderr, /NODE_ENV=production/)
  const jwks = runTokenCli([], { DATA_DIR: t.testdir(), AUTH_JWKS_URL: 'https://login.example.test/jwks.json' })
  t.equal(jwks.status, 1)
  t.match(jwks.stderr, /authorization server/)
})
