// What each SERVICE_ROLE serves: a worker answers its probes and metrics and nothing of the API; an
// API process is ready without the delivery queue. (That an API process sends no delivery, and a
// worker does: test/webhooks/roles.test.ts.)
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { roleParts, SERVICE_ROLES } from '../src/roles.ts'
import { bearer, build, serviceUrl, uniqueRedisPrefix } from './helper.ts'
import { freshPostgresDatabase } from './support/services.ts'
import { untilReadiness } from './support/readiness.ts'

const FAST = { HEALTH_REFRESH_INTERVAL_MS: '200', WEBHOOK_DISPATCH_INTERVAL_MS: '100' }

/** The settings of a process in `role`: API and worker processes share a PostgreSQL database. */
async function roleEnv (t: Parameters<typeof freshPostgresDatabase>[0], role: string): Promise<Record<string, string> | undefined> {
  const url = await freshPostgresDatabase(t)
  return url === undefined ? undefined : { ...FAST, SERVICE_ROLE: role, DATABASE_URL: url }
}

/** The checks readiness names once it answers 200. */
const untilReady = async (app: FastifyInstance): Promise<Record<string, string>> => (await untilReadiness(app)).json().checks

t.test('a worker answers its probes and metrics, 404 to the API and its documents, and is ready once its queue answers', async t => {
  const env = await roleEnv(t, 'worker')
  if (env === undefined) return
  const app = await build(t, { env })
  t.same(await untilReady(app), { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy', queue: 'Healthy' })

  const ping = await app.inject('/ping')
  t.equal(ping.statusCode, 200)
  t.equal(ping.body, 'pong')
  for (const url of ['/health/live', '/health/startup', '/health']) t.equal((await app.inject(url)).statusCode, 200, url)
  const metrics = await app.inject({ url: '/metrics', headers: await bearer({ scope: 'metrics:read' }) })
  t.equal(metrics.statusCode, 200)
  t.match(metrics.body, /webhook_delivery_attempts_total/)
  const queue = await app.inject({ url: '/health/queue', headers: await bearer({ scope: 'health:read' }) })
  t.equal(queue.statusCode, 200)
  t.match(queue.json(), { status: 'Healthy' })

  const token = await bearer({ scope: 'vagas:read vagas:write candidatos:read webhooks:write' })
  for (const [method, url] of [['GET', '/api/v1/vagas'], ['POST', '/api/v2/vagas'], ['GET', '/api/v2/webhooks'], ['GET', '/api/versions'], ['GET', '/docs/v1/openapi.json'], ['GET', '/.well-known/oauth-protected-resource']] as const) {
    const answer = await app.inject({ method, url, headers: token, ...(method === 'POST' && { payload: {} }) })
    t.equal(answer.statusCode, 404, `${method} ${url}`)
    t.match(answer.headers['content-type'], /^application\/problem\+json/, `${method} ${url} is a problem`)
    t.match(answer.json(), { status: 404 })
  }
})

t.test('a worker with REDIS_URL is ready without waiting for Redis: its readiness checks what delivering needs', async t => {
  const redisUrl = serviceUrl(t, 'TEST_REDIS_URL')
  if (redisUrl === undefined) return
  const env = await roleEnv(t, 'worker')
  if (env === undefined) return
  const app = await build(t, { env: { ...env, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, redisUrl, 'worker-role') } })
  t.same(Object.keys(await untilReady(app)).sort(), ['configuration', 'database', 'migrations', 'queue'])
})

t.test('an API process serves the API and is ready without the delivery queue', async t => {
  const env = await roleEnv(t, 'api')
  if (env === undefined) return
  const app = await build(t, { env })
  t.same(await untilReady(app), { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy' })
  const vagas = await app.inject({ url: '/api/v1/vagas', headers: await bearer({ scope: 'vagas:read' }) })
  t.equal(vagas.statusCode, 200)
})

t.test('every route file and plugin a role names exists', async t => {
  const root = join(import.meta.dirname, '..')
  for (const role of SERVICE_ROLES) {
    const { routes = [], withoutPlugins } = roleParts(role)
    for (const route of routes) t.ok(existsSync(join(root, 'routes', `${route}.ts`)), `${role}: routes/${route}.ts`)
    for (const plugin of withoutPlugins) t.ok(existsSync(join(root, 'plugins', `${plugin}.ts`)), `${role}: plugins/${plugin}.ts`)
  }
})
