import t from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { resolveRoutePolicy } from '../../../src/http/policy/route-policy.ts'
import { bearer, build } from '../../helper.ts'
import { eventually } from '../../support/eventually.ts'

t.test('a route that declares nothing gets the business defaults, and needs a token', async t => {
  t.same(resolveRoutePolicy({}), {
    access: 'token',
    scopes: [],
    probe: false,
    shed: true,
    rateLimited: true,
    timed: true,
    metrics: true,
    traced: true,
    accessLog: true,
    cacheable: false,
    database: false,
    versionNeutral: false
  })
  t.same(resolveRoutePolicy(undefined), resolveRoutePolicy({}), 'a route without config is a business route')
})

t.test('access: public, scopes, optional', async t => {
  t.match(resolveRoutePolicy({ public: true }), { access: 'public', scopes: [] })
  t.match(resolveRoutePolicy({ scopes: ['vagas:read'] }), { access: 'token', scopes: ['vagas:read'] })
  t.match(resolveRoutePolicy({ public: true, auth: 'optional' }), { access: 'optional', scopes: [] })
  t.match(resolveRoutePolicy({ public: false }), { access: 'token' }, 'public: false is deny by default')
})

t.test('a probe gets the probe defaults from the one flag', async t => {
  t.match(resolveRoutePolicy({ probe: true }), {
    probe: true,
    shed: false,
    rateLimited: false,
    timed: false,
    metrics: false,
    traced: false,
    accessLog: false,
    access: 'token'
  }, 'a probe still declares its access')
  t.match(resolveRoutePolicy({ probe: true, handlerTimer: true, metrics: true }), { timed: true, metrics: true, shed: false }, 'what a probe declares wins over the probe defaults')
})

t.test('each flag a route declares overrides its default', async t => {
  t.match(resolveRoutePolicy({ shed: false, rateLimit: false, handlerTimer: false, metrics: false, cacheable: true, database: true, apiVersionNeutral: true }), {
    probe: false,
    shed: false,
    rateLimited: false,
    timed: false,
    metrics: false,
    cacheable: true,
    database: true,
    versionNeutral: true,
    traced: true,
    accessLog: true
  })
})

t.test("a scope's defaults apply unless the route declares its own", async t => {
  t.match(resolveRoutePolicy({}, { public: true, database: true }), { access: 'public', database: true })
  t.match(resolveRoutePolicy({ scopes: ['x:read'] }, { public: true }), { access: 'token', scopes: ['x:read'] }, "the route's access replaces its scope's")
  t.match(resolveRoutePolicy({ database: false }, { database: true }), { database: false })
  t.match(resolveRoutePolicy({}, { probe: true }), { probe: true, shed: false })
})

// Both routes live at URLs nothing else knows: only the `probe` flag tells them apart.
function beaconAndWidgets (app: FastifyInstance): void {
  app.get('/beacon', { config: { probe: true } }, async () => {
    // Longer than HANDLER_TIMEOUT below: a probe has no handler timer.
    await new Promise(resolve => setTimeout(resolve, 1500))
    return { ok: true }
  })
  app.get('/widgets', async () => ({ ok: true }))
}

t.test('a probe, whatever its URL, is not shed, not rate limited, not timed, not measured and not logged', async t => {
  const lines: string[] = []
  // HANDLER_TIMEOUT: shorter than the probe takes, and long enough that the one /metrics scrape (it
  // has the timer, and the rate limit of one request leaves no retry) outlasts no busy machine.
  const app = await build(t, {
    env: { RATE_LIMIT_MAX: '1', SHED_MAX_HEAP_USED_BYTES: '1', HANDLER_TIMEOUT: '1000', LOG_LEVEL: 'info' },
    logStream: { write: line => { lines.push(line) } },
    extraRoutes: beaconAndWidgets
  })
  await app.health.lifecycle.reached('serving')

  // The business route is shed (past the heap limit) once the instance serves.
  await eventually(async () => { assert.equal((await app.inject('/widgets')).json().code, 'Overloaded') }, { timeout: 15_000 })

  for (let i = 0; i < 3; i++) {
    const res = await app.inject('/beacon')
    t.equal(res.statusCode, 200, `probe request ${i + 1} answers`)
    t.notOk(res.headers['ratelimit-limit'], 'no rate-limit header')
  }

  const metrics = (await app.inject({ url: '/metrics', headers: await bearer({ scope: 'metrics:read' }) })).body
  t.match(metrics, /http_request_duration_seconds_count\{[^}]*route="\/widgets"/, 'the business route is measured')
  t.notMatch(metrics, /route="\/beacon"/, 'the probe is not')

  const logged = (url: string) => lines.some(line => line.includes(`"url":"${url}"`) || line.includes(`"${url}"`))
  t.ok(logged('/widgets'), 'the business route has access log lines')
  t.notOk(logged('/beacon'), 'the probe has none')
})
