import t from 'tap'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, mintToken } from '../helper.ts'
import { emptyDataDir } from '../support/pglite-template.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
}

function logLines (): { lines: Array<Record<string, unknown>>, stream: { write: (line: string) => void } } {
  const lines: Array<Record<string, unknown>> = []
  return { lines, stream: { write: line => { lines.push(JSON.parse(line)) } } }
}

t.test('with no key setting, a development key is created under DATA_DIR and one warning is logged', async t => {
  const dataDir = emptyDataDir(t) // outlives the first app: the second start reads the key from it
  const log = logLines()
  const app = await build(t, { env: { AUTH_JWT_SECRET: '', DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn' }, extraRoutes: routes, logStream: log.stream })
  const keyFile = join(dataDir, 'dev-auth-secret')
  t.ok(existsSync(keyFile), 'the key file exists')
  t.equal(statSync(keyFile).mode & 0o777, 0o600, 'only the owner can read it')
  const warnings = log.lines.filter(line => line.level === 40 && /development mode/.test(String(line.msg)))
  t.equal(warnings.length, 1, 'exactly one development-mode warning')
  const secret = readFileSync(keyFile, 'utf8').trim()
  t.notMatch(JSON.stringify(log.lines), secret, 'the key itself is never logged')

  const token = await mintToken({ scope: 'vagas:read', key: new TextEncoder().encode(secret) })
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${token}` } })).statusCode, 200, 'tokens signed with the development key pass')
  t.equal((await app.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${await mintToken({ scope: 'vagas:read' })}` } })).statusCode, 401, 'tokens signed with another key do not')

  const again = await build(t, { env: { AUTH_JWT_SECRET: '', DATA_DIR: dataDir, NODE_ENV: 'development' }, extraRoutes: routes })
  t.equal(readFileSync(keyFile, 'utf8').trim(), secret, 'a second start keeps the same key')
  t.equal((await again.inject({ method: 'GET', url: '/secrets', headers: { authorization: `Bearer ${token}` } })).statusCode, 200)
})

t.test('NODE_ENV=production with no key setting refuses to start with a clear message', async t => {
  const dataDir = emptyDataDir(t)
  await t.rejects(build(t, { env: { AUTH_JWT_SECRET: '', DATA_DIR: dataDir, NODE_ENV: 'production' } }), {
    name: 'ConfigError',
    message: /No token verification key is configured: set AUTH_JWT_SECRET/
  })
  t.notOk(existsSync(join(dataDir, 'dev-auth-secret')), 'no development key is written')
})

t.test('a too-short AUTH_JWT_SECRET is refused at start', async t => {
  await t.rejects(build(t, { env: { AUTH_JWT_SECRET: 'short' } }), { name: 'ConfigError', message: /AUTH_JWT_SECRET/ })
})

t.test('a damaged development key stops start-up with a message that says what to do', async t => {
  const dataDir = t.testdir({ 'dev-auth-secret': 'short\n' })
  await t.rejects(build(t, { env: { AUTH_JWT_SECRET: '', DATA_DIR: dataDir, NODE_ENV: 'development' } }), { name: 'ConfigError', message: /damaged.*delete it/ })
})
