import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { bearer, build } from '../helper.js'
import { freshPostgresDatabase } from '../support/services.js'
import { forwardedService } from '../support/tcp-forwarder.js'

async function untilReady (app: FastifyInstance, wanted: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while ((await app.inject('/health/ready')).statusCode !== wanted) {
    if (Date.now() > deadline) throw new Error(`readiness never answered ${wanted}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

t.test('PostgreSQL unreachable from the start, then back, then lost mid-run, then back', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const { proxy, url: viaProxy } = await forwardedService(t, url, 5432)
  await proxy.down() // the port is known and refuses connections
  const app = await build(t, { env: { DATABASE_URL: viaProxy, HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0' } })

  await new Promise(resolve => setTimeout(resolve, 1500))
  const down = await app.inject('/health/ready')
  t.equal(down.statusCode, 503)
  t.equal(down.json().status, 'Unhealthy')
  t.not(down.json().checks.database, 'Healthy')
  t.notMatch(down.body, /127\.0\.0\.1|postgres:|ECONNREFUSED|password/)
  t.equal((await app.inject('/health/startup')).statusCode, 200, 'boot is over: the database gates readiness, never startup')
  t.equal((await app.inject('/health/live')).statusCode, 200, 'alive while the database is down')
  t.equal((await app.inject('/ping')).statusCode, 200)

  await proxy.up()
  await untilReady(app, 200)
  t.same((await app.inject('/health/ready')).json().checks, { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy' })
  t.equal((await app.inject('/health/startup')).statusCode, 200)

  await proxy.down()
  await untilReady(app, 503)
  const lost = await app.inject('/health/ready')
  t.equal(lost.json().status, 'Unhealthy')
  t.equal(lost.json().checks.database, 'Unhealthy')
  t.equal((await app.inject('/health/startup')).statusCode, 200, 'startup stays finished')
  t.equal((await app.inject('/health/live')).statusCode, 200)
  const one = await app.inject({ url: '/health/database', headers: await bearer({ scope: 'health:read' }) })
  t.equal(one.statusCode, 503)
  t.notMatch(one.body, /127\.0\.0\.1|ECONNREFUSED/)

  await proxy.up()
  await untilReady(app, 200)
  t.pass('recovered without a restart')
})

t.test('a pool held by busy requests does not make the database look down', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const app = await build(t, { env: { DATABASE_URL: url, HEALTH_CACHE_TTL_MS: '0' } })
  await untilReady(app, 200)
  // Every pooled connection busy for 3 s, longer than the database check's 1 s timeout.
  const busy = Promise.all(Array.from({ length: 10 }, async () => await sql`select pg_sleep(3)`.execute(app.storage.db)))
  await new Promise(resolve => setTimeout(resolve, 200))
  const res = await app.inject({ url: '/health/database', headers: await bearer({ scope: 'health:read' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'Healthy', 'the check has a connection of its own')
  await busy
})
