import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { bearer, build, mintToken, TEST_JWT_SECRET } from '../helper.ts'
import { compiledEntry, withoutTestHooks } from '../support/compiled-service.ts'
import { startServerProcess } from '../support/server-process.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
}

const REMOTE = '203.0.113.7'

t.test('a token over plain HTTP from another machine is refused with invalid_request', async t => {
  const app = await build(t, { extraRoutes: routes })
  const res = await app.inject({ method: 'GET', url: '/secrets', remoteAddress: REMOTE, headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(res.statusCode, 400)
  t.match(res.headers['www-authenticate'], /^Bearer realm="recrutamento-api", error="invalid_request", error_description="A token must be sent over HTTPS[^"]*"$/)
  t.match(res.json(), { code: 'InvalidAuthRequest', detail: /HTTPS/ })
  const anonymous = await app.inject({ method: 'GET', url: '/secrets', remoteAddress: REMOTE })
  t.equal(anonymous.statusCode, 401, 'a request without a token is simply challenged')
  const loopback = await app.inject({ method: 'GET', url: '/secrets', remoteAddress: '::1', headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(loopback.statusCode, 200, 'loopback clients are exempt')
})

t.test('AUTH_ALLOW_INSECURE_HTTP=true accepts tokens over plain HTTP', async t => {
  const app = await build(t, { env: { AUTH_ALLOW_INSECURE_HTTP: 'true' }, extraRoutes: routes })
  t.equal((await app.inject({ method: 'GET', url: '/secrets', remoteAddress: REMOTE, headers: await bearer({ scope: 'vagas:read' }) })).statusCode, 200)
})

t.test('behind a trusted proxy, the protocol the proxy reports decides', async t => {
  const app = await build(t, { env: { TRUST_PROXY: 'true' }, extraRoutes: routes })
  const headers = await bearer({ scope: 'vagas:read' })
  const viaHttps = await app.inject({ method: 'GET', url: '/secrets', remoteAddress: '10.0.0.2', headers: { ...headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': REMOTE } })
  t.equal(viaHttps.statusCode, 200)
  const viaHttp = await app.inject({ method: 'GET', url: '/secrets', remoteAddress: '127.0.0.1', headers: { ...headers, 'x-forwarded-proto': 'http', 'x-forwarded-for': REMOTE } })
  t.equal(viaHttp.statusCode, 400, 'a loopback proxy forwarding plain HTTP from a remote client is refused')

  const untrusting = await build(t, { extraRoutes: routes })
  const forged = await untrusting.inject({ method: 'GET', url: '/secrets', remoteAddress: REMOTE, headers: { ...headers, 'x-forwarded-proto': 'https' } })
  t.equal(forged.statusCode, 400, 'without TRUST_PROXY a client cannot claim https')
})

function httpsGet (url: string, headers: Record<string, string>): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers, rejectUnauthorized: false }, res => {
      let body = ''
      res.on('data', chunk => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('with TLS_CERT_FILE and TLS_KEY_FILE the server serves HTTPS', async t => {
  const dir = t.testdir()
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' })
  // A real process, with the shared test settings (among them: no load shedding on a busy test machine).
  const { url: address } = await startServerProcess(t, { TLS_CERT_FILE: cert, TLS_KEY_FILE: key })
  t.match(address, /^https:\/\//, 'the server listens with TLS')
  const ping = await httpsGet(`${address}/ping`, {})
  t.equal(ping.status, 200)
  t.equal(ping.body, 'pong')
  const metadata = await httpsGet(`${address}/.well-known/oauth-protected-resource`, { authorization: `Bearer ${await mintToken({})}` })
  t.equal(metadata.status, 200, `a token is accepted over HTTPS: ${metadata.body}`)
  t.match(JSON.parse(metadata.body), { resource: address })
})

t.test('TLS_CERT_FILE without TLS_KEY_FILE stops start-up with one clear line', async t => {
  const entry = await compiledEntry('src/server.js')
  const result = await new Promise<{ code: number | null, stderr: string }>(resolve => {
    const child = spawn(...withoutTestHooks(process.execPath, [entry]), {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, PORT: '0', TLS_CERT_FILE: '/nonexistent.pem', TLS_KEY_FILE: '', AUTH_JWT_SECRET: TEST_JWT_SECRET },
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', chunk => { stderr += chunk })
    child.on('exit', code => resolve({ code, stderr }))
  })
  t.equal(result.code, 1)
  t.match(result.stderr, /Set both TLS_CERT_FILE and TLS_KEY_FILE/)
})
