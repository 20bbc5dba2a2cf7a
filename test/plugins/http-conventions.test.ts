import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { build, sharedApp } from '../helper.ts'

function widgets (app: FastifyInstance): void {
  app.get('/widgets/:id', { config: { cacheable: true } }, async (_req, reply) => {
    return reply.header('cache-control', 'public, max-age=60').header('last-modified', 'Wed, 21 Oct 2026 07:28:00 GMT').send({ ok: true })
  })
  app.get('/catalogue', { config: { cacheable: true } }, async () => ({ cacheable: true }))
  app.post('/widgets', { schema: { body: Type.Object({ name: Type.String({ minLength: 1 }), size: Type.Integer() }) } }, async () => ({ ok: true }))
  app.get('/boom', async () => { throw new Error('connect ECONNREFUSED db.internal:5432 password=secret') })
}

// The tests on the default settings share an app, with the widgets or without: none changes it.
const plain = sharedApp()
const withWidgets = sharedApp({ extraRoutes: widgets })

t.test('OPTIONS on a known path answers 200 with Allow', async t => {
  const app = await plain()
  const res = await app.inject({ method: 'OPTIONS', url: '/ping' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(res.body, '')
})

t.test('an unsupported method on a known path answers 405 with Allow', async t => {
  const app = await plain()
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const res = await app.inject({ method, url: '/ping' })
    t.equal(res.statusCode, 405, method)
    t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
    t.match(res.headers['content-type'], /^application\/problem\+json/)
    t.match(res.json(), { status: 405, title: 'Method Not Allowed', code: 'MethodNotAllowed', instance: '/ping' })
  }
})

t.test('an unknown URI answers 404 problem', async t => {
  const app = await plain()
  const res = await app.inject({ method: 'GET', url: '/nothing/here?x=1' })
  t.equal(res.statusCode, 404)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  t.same(Object.keys(res.json()).slice(0, 5), ['type', 'title', 'status', 'detail', 'instance'])
  t.match(res.json(), { type: 'urn:problem-type:recrutamento:NotFound', title: 'Not Found', status: 404, instance: '/nothing/here' }, 'instance has no query string')
  t.ok(res.headers['last-modified'], 'every GET answer has Last-Modified')
  t.equal(res.headers['cache-control'], 'no-store')
})

t.test('trailing slash, extension and upper case redirect to the canonical path', async t => {
  const app = await plain()
  for (const url of ['/ping/', '/PING', '/Ping', '/ping.json', '/ping.txt/', '/ping/?a=b']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 301, url)
    t.equal(res.headers.location, url.endsWith('?a=b') ? '/ping?a=b' : '/ping', url)
  }
  const head = await app.inject({ method: 'HEAD', url: '/PING' })
  t.equal(head.statusCode, 301)
})

t.test('a non-canonical path with no canonical resource, or a non-GET method, is 404', async t => {
  const app = await plain()
  t.equal((await app.inject({ method: 'GET', url: '/nothing/' })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/PING' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/health.json.bak' })).statusCode, 404)
})

t.test('cacheable routes keep their own cache headers and Last-Modified', async t => {
  const app = await withWidgets()
  const res = await app.inject({ method: 'GET', url: '/widgets/1' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'public, max-age=60')
  t.notOk(res.headers.pragma)
  t.equal(res.headers['last-modified'], 'Wed, 21 Oct 2026 07:28:00 GMT')
})

t.test('a cacheable route that sets no Cache-Control gets no no-store either; its neighbours do', async t => {
  const app = await withWidgets()
  for (const method of ['GET', 'HEAD'] as const) {
    const res = await app.inject({ method, url: '/catalogue' })
    t.equal(res.statusCode, 200)
    t.notOk(res.headers['cache-control'], `${method}: no cache-control`)
    t.notOk(res.headers.pragma)
    t.notOk(res.headers.expires)
    t.ok(res.headers['last-modified'])
  }
  const other = await app.inject({ method: 'POST', url: '/widgets', payload: { name: 'x', size: 1 } })
  t.equal(other.headers['cache-control'], 'no-store')
})

t.test('a caller request id is kept when well formed, replaced otherwise', async t => {
  const app = await plain()
  const kept = await app.inject({ method: 'GET', url: '/ping', headers: { 'x-request-id': 'abc-123.DEF' } })
  t.equal(kept.headers['x-request-id'], 'abc-123.DEF')
  for (const bad of ['a'.repeat(129), 'has space', '<script>', 'a\u00e9']) {
    const res = await app.inject({ method: 'GET', url: '/ping', headers: { 'x-request-id': bad } })
    t.not(res.headers['x-request-id'], bad)
    t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  }
})

t.test('validation failures list each invalid field', async t => {
  const app = await withWidgets()
  const res = await app.inject({ method: 'POST', url: '/widgets', payload: { name: '', size: 'big', extra: 1 } })
  t.equal(res.statusCode, 400)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  const body = res.json()
  t.equal(body.code, 'ValidationFailed')
  t.same(body.errors.map((e: { field: string }) => e.field).sort(), ['/name', '/size'])
  t.ok(body.errors.every((e: { in: string, message: string }) => e.in === 'body' && e.message.length > 0))
  const missing = await app.inject({ method: 'POST', url: '/widgets', payload: {} })
  t.same(missing.json().errors.map((e: { field: string }) => e.field).sort(), ['/name', '/size'])
})

t.test('unparseable, unsupported (text/plain too) and oversized bodies are problems', async t => {
  const app = await build(t, { extraRoutes: widgets, env: { BODY_LIMIT: '2048' } })
  const json = await app.inject({ method: 'POST', url: '/widgets', headers: { 'content-type': 'application/json' }, payload: '{"name": ' })
  t.equal(json.statusCode, 400)
  t.match(json.json(), { code: 'InvalidJson', status: 400 })
  const media = await app.inject({ method: 'POST', url: '/widgets', headers: { 'content-type': 'text/xml' }, payload: '<a/>' })
  t.equal(media.statusCode, 415)
  t.match(media.json(), { code: 'UnsupportedMediaType', status: 415 })
  // JSON sent as text/plain is refused for its type too, not read as a string that fails validation.
  const text = await app.inject({ method: 'POST', url: '/widgets', headers: { 'content-type': 'text/plain; charset=utf-8' }, payload: '{"name":"a","size":1}' })
  t.equal(text.statusCode, 415)
  t.match(text.json(), { code: 'UnsupportedMediaType', status: 415 })
  const large = await app.inject({ method: 'POST', url: '/widgets', payload: { name: 'x'.repeat(4096), size: 1 } })
  t.equal(large.statusCode, 413)
  t.match(large.json(), { code: 'BodyTooLarge', status: 413 })
  for (const res of [json, media, text, large]) t.match(res.headers['content-type'], /^application\/problem\+json/)
})

t.test('an unexpected exception answers a 500 problem with nothing internal', async t => {
  const app = await withWidgets()
  const res = await app.inject({ method: 'GET', url: '/boom' })
  t.equal(res.statusCode, 500)
  t.match(res.json(), { status: 500, code: 'InternalError', title: 'Internal Server Error' })
  t.notMatch(res.body, /ECONNREFUSED|db\.internal|5432|secret|at .*\.ts|Error:/)
  t.equal(res.json().requestId, res.headers['x-request-id'])
})

t.test('routes that break the URI rules are refused at start-up', async t => {
  const bad = ['/Widgets', '/widget_items', '/widgets/', '/widgets.json', '/widgets/:id/delete', '/deleteUser', '/users/create', '/vagas/:id/remover']
  for (const path of bad) {
    await t.rejects(build(t, { extraRoutes: app => { app.get(path, async () => 'x') } }), /breaks the URI rules/, path)
  }
})

t.test('the action routes of the interface keep the URI rules', async t => {
  const actions = ['candidatar', 'aprovar', 'reprovar', 'transferir']
  const app = await build(t, {
    extraRoutes: scope => {
      for (const action of actions) scope.post(`/candidatos/:id/${action}`, async () => 'x')
      scope.get('/vagas/:id/candidatos', async () => 'x')
      scope.get('/multi-word-resources', async () => 'x')
    }
  })
  t.equal((await app.inject({ method: 'OPTIONS', url: '/candidatos/1/aprovar' })).headers.allow, 'OPTIONS, POST')
})
