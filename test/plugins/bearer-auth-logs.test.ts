import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, mintToken } from '../helper.ts'

function routes (app: FastifyInstance): void {
  app.get('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
  app.post('/secrets', { config: { scopes: ['vagas:read'] } }, async () => ({ ok: true }))
  app.get('/broken', { config: { scopes: ['vagas:read'] } }, async () => { throw new Error('unexpected') })
}

t.test('no log line ever holds a token, whichever way it came and however the request ended', async t => {
  const lines: string[] = []
  const app = await build(t, { env: { LOG_LEVEL: 'trace' }, extraRoutes: routes, logStream: { write: line => { lines.push(line) } } })
  const good = await mintToken({ scope: 'vagas:read' })
  const weak = await mintToken({ scope: 'other' })
  const expired = await mintToken({ scope: 'vagas:read', exp: Math.floor(Date.now() / 1000) - 600 })
  const tokens = [good, weak, expired, 'opaque-token-value-123', 'cookie-secret-456']
  const requests = [
    { method: 'GET' as const, url: `/secrets?access_token=${good}` },
    { method: 'GET' as const, url: `/secrets?a=1&access_token=${weak}&b=2` },
    { method: 'GET' as const, url: `/secrets?access_token=${expired}` },
    { method: 'GET' as const, url: '/secrets?access_token=opaque-token-value-123' },
    { method: 'GET' as const, url: `/secrets?access_token=${good}`, headers: { authorization: `Bearer ${good}` } },
    { method: 'GET' as const, url: '/secrets', headers: { authorization: `Bearer ${expired}` } },
    { method: 'GET' as const, url: '/secrets', headers: { authorization: `Bearer ${good}`, cookie: 'session=cookie-secret-456' } },
    { method: 'GET' as const, url: `/broken?access_token=${good}` },
    { method: 'POST' as const, url: '/secrets', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `access_token=${good}` }
  ]
  for (const request of requests) await app.inject(request)
  t.ok(lines.filter(line => line.includes('"request completed"')).length >= requests.length, `every request has its access line (${lines.length} lines)`)
  t.ok(lines.some(line => line.includes('access_token=[Redacted]')), 'the URL is logged with the token redacted')
  for (const token of tokens) {
    const leaked = lines.filter(line => line.includes(token) || line.includes(token.split('.')[2] ?? token))
    t.same(leaked, [], `no line holds ${token.slice(0, 8)}...`)
  }
})

t.test('a query token is masked in the log whatever the encoding of its name', async t => {
  const lines: string[] = []
  const app = await build(t, { env: { LOG_LEVEL: 'trace' }, extraRoutes: routes, logStream: { write: line => { lines.push(line) } } })
  const token = await mintToken({ scope: 'vagas:read' })
  const signature = token.split('.')[2]!
  const names = ['access%5Ftoken', '%61ccess_token', 'access_token%00', 'access_token%zz', 'ACCESS_TOKEN', 'access%5ftoken%5B%5D']
  for (const name of names) {
    for (const path of ['/secrets', '/broken']) {
      lines.length = 0
      const response = await app.inject({ method: 'GET', url: `${path}?a=1&${name}=${token}` })
      t.ok(lines.some(line => line.includes('"req":')), `${path}?${name}= is logged (${response.statusCode})`)
      t.same(lines.filter(line => line.includes(signature)), [], `no line holds the token sent as ${name} to ${path}`)
    }
  }
})
