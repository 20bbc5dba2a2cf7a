import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { buildWithToken as build, sharedApp } from '../helper.ts'
import { loadConfig } from '../../src/config.ts'

const REPORT = { 'api-supported-versions': '1.0, 2.0', 'api-deprecated-versions': '1.0' }

// A JSON resource in both versions and a body-taking route in 2.0 only, beside the service's own.
function widgets (app: FastifyInstance): void {
  app.get('/api/widgets', { constraints: { apiVersion: ['1.0', '2.0'] } }, async request => ({ version: request.apiVersion, self: request.apiHref('/widgets') }))
  app.post('/api/widgets', {
    constraints: { apiVersion: '2.0' },
    schema: { body: Type.Object({ name: Type.String() }) }
  }, async (request, reply) => reply.code(201).send({ version: request.apiVersion }))
}

// The tests on the default settings share an app, with the widgets or without: none changes it.
const plain = sharedApp({}, build)
const withWidgets = sharedApp({ extraRoutes: widgets }, build)

t.test('no version named: the default 1.0 serves, flagged as deprecated', async t => {
  const app = await plain()
  const res = await app.inject({ url: '/api/user' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'user, served by API version 1.0')
  t.match(res.headers, { ...REPORT, 'x-api-version': '1.0', vary: 'Accept, x-api-version', deprecation: '@1780272000' })
  t.equal(res.headers.link, '</docs/v2>; rel="deprecation"; type="text/html"')
  t.notOk(res.headers.sunset, 'no sunset unless configured')
})

t.test('each way alone selects the version', async t => {
  const app = await plain()
  const ways: Array<[string, Record<string, string>]> = [
    ['/api/v2/user', {}],
    ['/api/v2.0/user', {}],
    ['/api/user', { 'x-api-version': '2.0' }],
    ['/api/user', { 'x-api-version': '2' }],
    ['/api/user', { accept: 'application/json; x-api-version=2.0' }],
    ['/api/user', { accept: 'text/plain;x-api-version="2.0", */*;q=0.1' }],
    ['/api/user', { accept: 'application/vnd.recrutamento-v2+json' }],
    ['/api/user', { accept: 'application/vnd.recrutamento-v2.0+json' }]
  ]
  for (const [url, headers] of ways) {
    const res = await app.inject({ url, headers })
    const way = `${url} ${JSON.stringify(headers)}`
    t.equal(res.statusCode, 200, way)
    t.equal(res.body, 'user, served by API version 2.0', way)
    t.match(res.headers, { ...REPORT, 'x-api-version': '2.0', vary: 'Accept, x-api-version' }, way)
    t.notOk(res.headers.deprecation, `${way}: 2.0 is not deprecated`)
    t.notOk(res.headers.link, way)
  }
  for (const url of ['/api/v1/user', '/api/v1.0/user']) {
    const res = await app.inject({ url })
    t.equal(res.body, 'user, served by API version 1.0', url)
    t.equal(res.headers.deprecation, '@1780272000', url)
  }
})

t.test('the same version named several ways is served', async t => {
  const app = await plain()
  const res = await app.inject({
    url: '/api/v2/user',
    headers: { 'x-api-version': '2.0', accept: 'application/vnd.recrutamento-v2+json, text/plain; x-api-version=2' }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'user, served by API version 2.0')
})

t.test('the media type parameter on a request body selects the version', async t => {
  const app = await withWidgets()
  const res = await app.inject({ method: 'POST', url: '/api/widgets', headers: { 'content-type': 'application/json; x-api-version=2.0' }, payload: '{"name":"a"}' })
  t.equal(res.statusCode, 201)
  t.same(res.json(), { version: '2.0' })
  t.equal(res.headers['x-api-version'], '2.0')
})

t.test('a body sent as the vendor media type is parsed and selects the version', async t => {
  const app = await withWidgets()
  const res = await app.inject({ method: 'POST', url: '/api/widgets', headers: { 'content-type': 'application/vnd.recrutamento-v2+json' }, payload: '{"name":"a"}' })
  t.equal(res.statusCode, 201)
  t.same(res.json(), { version: '2.0' })
  const invalid = await app.inject({ method: 'POST', url: '/api/widgets', headers: { 'content-type': 'application/vnd.recrutamento-v2+json' }, payload: '{"name":' })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().code, 'InvalidJson')
  const conflict = await app.inject({ method: 'POST', url: '/api/v1/widgets', headers: { 'content-type': 'application/vnd.recrutamento-v2+json' }, payload: '{"name":"a"}' })
  t.match(conflict.json(), { code: 'AmbiguousApiVersion', sources: [{ source: 'url-segment' }, { source: 'content-type-vendor-media-type' }] })
})

t.test('different versions named answer 400 AmbiguousApiVersion naming each source', async t => {
  const app = await plain()
  const res = await app.inject({ url: '/api/v1/user', headers: { 'x-api-version': '2.0', accept: 'application/vnd.recrutamento-v2+json' } })
  t.equal(res.statusCode, 400)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  t.match(res.json(), { code: 'AmbiguousApiVersion', status: 400, instance: '/api/v1/user' })
  t.same(res.json().sources, [
    { source: 'url-segment', value: '1.0' },
    { source: 'x-api-version-header', value: '2.0' },
    { source: 'accept-vendor-media-type', value: '2.0' }
  ])
  t.match(res.headers, { ...REPORT, vary: 'Accept, x-api-version' }, 'errors report the versions too')
  t.notOk(res.headers['x-api-version'], 'no version served')
  const two = await app.inject({ url: '/api/user', headers: { 'x-api-version': '1.0, 2.0' } })
  t.equal(two.json().code, 'AmbiguousApiVersion')
})

t.test('a malformed version answers 400 InvalidApiVersion', async t => {
  const app = await plain()
  for (const headers of [{ 'x-api-version': 'banana' }, { 'x-api-version': '2.0.1' }, { accept: 'application/json; x-api-version=v2' }, { 'x-api-version': '' }]) {
    const res = await app.inject({ url: '/api/user', headers })
    t.equal(res.statusCode, 400, JSON.stringify(headers))
    t.match(res.json(), { code: 'InvalidApiVersion', supportedVersions: ['1.0', '2.0'] })
    t.equal(res.headers['api-supported-versions'], '1.0, 2.0')
  }
  const segment = await app.inject({ url: '/api/v2x/user' })
  t.match(segment.json(), { code: 'InvalidApiVersion', sources: [{ source: 'url-segment', value: '2x' }] })
})

t.test('a well-formed version that is not supported answers 400 UnsupportedApiVersion', async t => {
  const app = await plain()
  for (const [url, headers] of [['/api/v3/user', {}], ['/api/user', { 'x-api-version': '1.5' }], ['/api/user', { accept: 'application/vnd.recrutamento-v9+json' }]] as const) {
    const res = await app.inject({ url, headers })
    t.equal(res.statusCode, 400, url)
    t.match(res.json(), { code: 'UnsupportedApiVersion', supportedVersions: ['1.0', '2.0'] })
    t.match(res.headers, REPORT)
  }
})

t.test('a route that other versions serve answers UnsupportedApiVersion; a path in no version stays 404', async t => {
  const app = await withWidgets()
  const v1 = await app.inject({ method: 'POST', url: '/api/v1/widgets', payload: { name: 'a' } })
  t.equal(v1.statusCode, 400)
  t.match(v1.json(), { code: 'UnsupportedApiVersion', supportedVersions: ['2.0'], instance: '/api/v1/widgets' })
  const byDefault = await app.inject({ method: 'POST', url: '/api/widgets', payload: { name: 'a' } })
  t.match(byDefault.json(), { code: 'UnsupportedApiVersion', requestedVersion: '1.0' })
  for (const url of ['/api/v2/nothing', '/api/nothing', '/api/v2']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 404, url)
    t.match(res.headers, REPORT, url)
  }
  t.equal((await app.inject({ url: '/api/v3/nothing' })).statusCode, 404, 'a bad version on an unknown path is still 404')
  const method = await app.inject({ method: 'DELETE', url: '/api/v2/widgets' })
  t.equal(method.statusCode, 405)
  t.equal(method.headers.allow, 'GET, HEAD, OPTIONS, POST')
  t.match(method.headers, REPORT, 'a 405 under /api reports the versions too')
  const options = await app.inject({ method: 'OPTIONS', url: '/api/v2/widgets' })
  t.equal(options.statusCode, 200)
  t.match(options.headers, REPORT)
})

t.test('the vendor media type comes back as the Content-Type of a JSON answer', async t => {
  const app = await withWidgets()
  const res = await app.inject({ url: '/api/widgets', headers: { accept: 'application/vnd.recrutamento-v2+json' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/vnd.recrutamento-v2+json; charset=utf-8')
  t.same(res.json(), { version: '2.0', self: '/api/v2/widgets' })
  const plain = await app.inject({ url: '/api/widgets', headers: { 'x-api-version': '2.0' } })
  t.match(plain.headers['content-type'], /^application\/json/)
  const problem = await app.inject({ url: '/api/widgets', headers: { accept: 'application/vnd.recrutamento-v3+json' } })
  t.match(problem.headers['content-type'], /^application\/problem\+json/)
})

t.test('the vendor name is a setting', async t => {
  const app = await build(t, { env: { API_VENDOR_NAME: 'acme' }, extraRoutes: widgets })
  const res = await app.inject({ url: '/api/widgets', headers: { accept: 'application/vnd.acme-v1+json' } })
  t.equal(res.headers['content-type'], 'application/vnd.acme-v1+json; charset=utf-8')
  t.equal(res.headers['x-api-version'], '1.0')
  const other = await app.inject({ url: '/api/widgets', headers: { accept: 'application/vnd.recrutamento-v2+json' } })
  t.equal(other.headers['x-api-version'], '1.0', 'another vendor name names no version')
})

t.test('links follow the served version; the original URL is kept', async t => {
  const app = await withWidgets()
  t.equal((await app.inject({ url: '/api/v1/widgets' })).json().self, '/api/v1/widgets')
  t.equal((await app.inject({ url: '/api/widgets', headers: { 'x-api-version': '2.0' } })).json().self, '/api/v2/widgets')
  const redirect = await app.inject({ url: '/api/v2/user/?a=1' })
  t.equal(redirect.statusCode, 301)
  t.equal(redirect.headers.location, '/api/v2/user?a=1')
})

t.test('a configured sunset adds Sunset and a sunset link', async t => {
  const app = await build(t, { env: { API_V1_DEPRECATION_DATE: '2026-06-01', API_V1_SUNSET_DATE: '2027-01-31T00:00:00Z' } })
  const res = await app.inject({ url: '/api/v1/user' })
  t.equal(res.headers.deprecation, '@1780272000')
  t.equal(res.headers.sunset, 'Sun, 31 Jan 2027 00:00:00 GMT')
  t.equal(res.headers.link, '</docs/v2>; rel="deprecation"; type="text/html", </docs/v2>; rel="sunset"; type="text/html"')
  const v2 = await app.inject({ url: '/api/v2/user' })
  t.notOk(v2.headers.sunset)
})

t.test('a sunset before the deprecation, or a bad date, stops start-up', async t => {
  t.throws(() => loadConfig({ API_V1_DEPRECATION_DATE: '2026-06-01', API_V1_SUNSET_DATE: '2026-05-31' }), /API_V1_SUNSET_DATE.*no earlier than API_V1_DEPRECATION_DATE/)
  t.throws(() => loadConfig({ API_V1_SUNSET_DATE: 'soon' }), /Invalid setting API_V1_SUNSET_DATE/)
  t.throws(() => loadConfig({ API_VENDOR_NAME: 'Acme Corp' }), /Invalid setting API_VENDOR_NAME/)
})

t.test('responses outside /api carry no version headers', async t => {
  const app = await plain()
  const res = await app.inject({ url: '/ping', headers: { 'x-api-version': 'banana' } })
  t.equal(res.statusCode, 200)
  t.notOk(res.headers['api-supported-versions'])
  t.notOk(res.headers['x-api-version'])
  t.notOk(res.headers.vary)
})

t.test('routes declaring versions wrongly are refused at start-up', async t => {
  await t.rejects(build(t, { extraRoutes: app => { app.get('/api/gadgets', async () => 'x') } }), /declares no API version/)
  await t.rejects(build(t, { extraRoutes: app => { app.get('/api/gadgets', { constraints: { apiVersion: '3.0' } }, async () => 'x') } }), /versions are 1.0, 2.0/)
  await t.rejects(build(t, {
    extraRoutes: app => {
      app.get('/api/gadgets', { constraints: { apiVersion: ['1.0', '2.0'] } }, async () => 'x')
      app.get('/api/gadgets', { constraints: { apiVersion: '2.0' } }, async () => 'y')
    }
  }), /declared twice for API version 2.0/)
  await t.rejects(build(t, { extraRoutes: app => { app.get('/gadgets', { constraints: { apiVersion: '2.0' } }, async () => 'x') } }), /not under \/api/)
})
