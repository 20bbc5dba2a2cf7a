import t from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { untilReadiness } from '../support/readiness.ts'

const FAST = { HEALTH_REFRESH_INTERVAL_MS: '200' }

async function until (predicate: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => { assert.ok(await predicate(), 'condition not met in time') }, { timeout: timeoutMs, interval: 50 })
}

async function readyApp (t: Parameters<typeof build>[0]): Promise<FastifyInstance> {
  const app = await build(t, { env: FAST })
  await untilReadiness(app)
  return app
}

const PROBES = ['/health', '/health/live', '/health/ready', '/health/startup', '/health/shallow']

t.test('every public probe answers GET and HEAD with no-store headers and Last-Modified', async t => {
  const app = await readyApp(t)
  for (const url of PROBES) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, `${url} is 200 once started`)
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.headers['cache-control'], 'no-store')
    t.equal(res.headers.pragma, 'no-cache')
    t.equal(res.headers.expires, '0')
    t.ok(res.headers['last-modified'])
    t.equal(res.json().status, 'Healthy')
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '')
  }
})

t.test('body shapes: ready names each check, live is process only, public /health is status only', async t => {
  const app = await readyApp(t)
  t.same((await app.inject('/health/ready')).json(), {
    status: 'Healthy',
    checks: { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy' }
  })
  t.same((await app.inject('/health/live')).json(), { status: 'Healthy', checks: { 'event-loop': 'Healthy' } })
  t.same((await app.inject('/health')).json(), { status: 'Healthy' })
  t.same((await app.inject('/health/startup')).json(), { status: 'Healthy' })
  t.same((await app.inject('/health/shallow')).json(), { status: 'Healthy' })
})

t.test('while starting: startup and ready are 503, live and shallow are 200', async t => {
  const app = await build(t, {
    env: FAST,
    extraRoutes: scope => {
      // A warm-up step that has not finished: boot is not over.
      scope.health.register('warm-up', () => 'Starting', { tags: ['startup'] })
    }
  })
  // The warm-up check has run and said Starting: boot is not over because of it, not because nothing ran.
  await until(() => app.health.latest('warm-up')?.status === 'Starting')
  const startup = await app.inject('/health/startup')
  t.equal(startup.statusCode, 503)
  t.same(startup.json(), { status: 'Starting' })
  const ready = await app.inject('/health/ready')
  t.equal(ready.statusCode, 503)
  t.equal(ready.json().status, 'NotReady')
  t.equal((await app.inject('/health/live')).statusCode, 200)
  t.equal((await app.inject('/health/shallow')).statusCode, 200)
})

function reader () {
  return bearer({ scope: 'health:read' })
}

t.test('detail endpoints need a token with health:read; /health shows checks only to such a token', async t => {
  const app = await readyApp(t)
  for (const url of ['/health/deep', '/health/dependencies', '/health/database', '/health/nothing-here']) {
    const anonymous = await app.inject(url)
    t.equal(anonymous.statusCode, 401, `${url} without a token`)
    t.match(anonymous.headers['www-authenticate'], /^Bearer realm=/)
    t.match(anonymous.headers['content-type'], /^application\/problem\+json/)
    const wrongScope = await app.inject({ url, headers: await bearer({ scope: 'vagas:read' }) })
    t.equal(wrongScope.statusCode, 403, `${url} with another scope`)
    t.match(wrongScope.headers['www-authenticate'], /error="insufficient_scope"/)
  }
  t.same((await app.inject({ url: '/health', headers: await bearer({ scope: 'vagas:read' }) })).json(), { status: 'Healthy' })
  t.same((await app.inject({ url: '/health', headers: await reader() })).json(), {
    status: 'Healthy',
    checks: { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy' }
  })
  t.equal((await app.inject({ url: '/health', headers: { authorization: 'Bearer not-a-token' } })).statusCode, 401, 'a bad token is refused, not ignored')
  const expired = await bearer({ scope: 'health:read', exp: Math.floor(Date.now() / 1000) - 3600 })
  t.equal((await app.inject({ url: '/health', headers: expired })).statusCode, 401, '/health uses the token, so an expired one is refused')
  for (const probe of ['/ping', '/health/live', '/health/ready', '/health/startup', '/health/shallow']) {
    t.equal((await app.inject({ url: probe, headers: expired })).statusCode, 200, `${probe} uses no token and ignores an expired one`)
  }
})

t.test('protected detail endpoints: deep, dependencies and one dependency by name', async t => {
  const app = await readyApp(t)
  const headers = await reader()
  const deep = await app.inject({ url: '/health/deep', headers })
  t.equal(deep.statusCode, 200)
  t.match(deep.json(), {
    status: 'Healthy',
    checks: {
      database: { status: 'Healthy', latencyMs: Number, ageMs: Number, critical: true, details: { kind: 'pglite' } },
      migrations: { status: 'Healthy', critical: true }
    }
  })
  const deps = await app.inject({ url: '/health/dependencies', headers })
  t.equal(deps.statusCode, 200)
  const body = deps.json()
  t.equal(body.status, 'Healthy')
  t.same(body.dependencies.map((d: { name: string }) => d.name).sort(), ['configuration', 'database', 'migrations', 'workers'])
  for (const d of body.dependencies) t.match(d, { name: String, status: 'Healthy', latencyMs: Number, ageMs: Number })

  const one = await app.inject({ url: '/health/database', headers })
  t.equal(one.statusCode, 200)
  t.match(one.json(), { name: 'database', status: 'Healthy', latencyMs: Number })
  t.same(Object.keys(one.json()).sort(), ['ageMs', 'latencyMs', 'name', 'status'])

  const unknown = await app.inject({ url: '/health/nothing-here', headers })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.headers['content-type'], /^application\/problem\+json/)
  t.equal(unknown.json().code, 'NotFound')
})

t.test('an unhealthy critical check makes ready Unhealthy (503) and names it; non-critical only degrades', async t => {
  let broken = false
  let cacheDown = false
  const app = await build(t, {
    env: FAST,
    extraRoutes: scope => {
      scope.health.register('broker', () => { if (broken) throw new Error('connect ECONNREFUSED 10.0.0.7:5672') })
      scope.health.register('cache', () => cacheDown ? 'Unhealthy' : 'Healthy', { critical: false })
    }
  })
  await untilReadiness(app)
  cacheDown = true
  await until(async () => (await app.inject('/health/ready')).json().status === 'Degraded')
  const degraded = await app.inject('/health/ready')
  t.equal(degraded.statusCode, 200, 'Degraded still serves')
  t.equal(degraded.json().checks.cache, 'Unhealthy')

  broken = true
  await untilReadiness(app, 503)
  const ready = await app.inject('/health/ready')
  t.same(ready.json(), {
    status: 'Unhealthy',
    checks: { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy', broker: 'Unhealthy', cache: 'Unhealthy' }
  })
  t.notMatch(ready.body, /ECONNREFUSED|10\.0\.0\.7/)
  t.equal((await app.inject('/health')).json().status, 'Unhealthy')
  t.equal((await app.inject('/health/live')).statusCode, 200, 'liveness ignores dependencies')
  const broker = await app.inject({ url: '/health/broker', headers: await reader() })
  t.equal(broker.statusCode, 503)
  t.notMatch(broker.body, /ECONNREFUSED|10\.0\.0\.7/)

  broken = false
  cacheDown = false
  await until(async () => (await app.inject('/health/ready')).json().status === 'Healthy')
  t.pass('recovers without a restart')
})

t.test('a hanging check reports Timeout within its limit while the endpoint still answers in time', async t => {
  // The default check timeout is far from the check's own: a check cut by the wrong one fails the bounds
  // below by tens of seconds, while a busy machine may still fire the 500 ms timer late.
  const app = await build(t, {
    env: { ...FAST, HEALTH_CHECK_TIMEOUT_MS: '30000' },
    extraRoutes: scope => {
      scope.health.register('slow-api', () => new Promise(() => {}), { timeout: 500, tags: ['deep'], cacheTtl: 0 })
    }
  })
  const headers = await reader()
  await app.inject({ url: '/health/configuration', headers }) // warms the token verifier up
  const started = Date.now()
  const res = await app.inject({ url: '/health/slow-api', headers })
  const elapsed = Date.now() - started
  t.equal(res.statusCode, 503)
  t.match(res.json(), { name: 'slow-api', status: 'Timeout' })
  t.ok(res.json().latencyMs >= 490 && res.json().latencyMs < 10_000, `the check was cut at ${res.json().latencyMs} ms (limit 500 ms)`)
  t.ok(elapsed < 10_000, `answered in ${elapsed} ms`)
  const deep = await app.inject({ url: '/health/deep', headers })
  t.equal(deep.json().checks['slow-api'].status, 'Timeout')
  t.equal(deep.json().status, 'Timeout')
})

t.test('100 concurrent polls of /health/deep run the heavy check once per TTL', async t => {
  let runs = 0
  const app = await build(t, {
    env: FAST,
    extraRoutes: scope => {
      // Slow on purpose, so that the 100 polls below arrive while one run is in flight.
      scope.health.register('search-index', async () => { runs++; await new Promise(resolve => setTimeout(resolve, 100)) }, { tags: ['deep'], cacheTtl: 60_000 })
    }
  })
  const headers = await reader()
  const answers = await Promise.all(Array.from({ length: 100 }, () => app.inject({ url: '/health/deep', headers })))
  t.ok(answers.every(res => res.statusCode === 200 || res.statusCode === 503))
  t.equal(runs, 1, 'one run for 100 polls')
  await Promise.all(Array.from({ length: 50 }, () => app.inject({ url: '/health/deep', headers })))
  t.equal(runs, 1, 'still one inside the TTL (the run after it expires is shown in the registry tests)')
  const ages = answers.map(res => res.json().checks['search-index'].ageMs as number)
  t.ok(ages.every(age => age >= 0), 'each answer says how old the shared result is')
})

t.test('readiness polls run no check: results come from the background refresh', async t => {
  let runs = 0
  const app = await build(t, {
    env: { HEALTH_REFRESH_INTERVAL_MS: '60000' },
    extraRoutes: scope => { scope.health.register('counted', () => { runs++ }) }
  })
  await until(() => runs === 1)
  await Promise.all(Array.from({ length: 200 }, () => app.inject('/health/ready')))
  await Promise.all(Array.from({ length: 200 }, () => app.inject('/health')))
  t.equal(runs, 1, 'no poll ran the check')
})

t.test('readiness turns NotReady at once when shutdown begins; liveness stays 200', async t => {
  const app = await readyApp(t)
  app.health.beginShutdown()
  const ready = await app.inject('/health/ready')
  t.equal(ready.statusCode, 503)
  t.equal(ready.json().status, 'NotReady')
  t.equal((await app.inject('/health/live')).statusCode, 200)
})
