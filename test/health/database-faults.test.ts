import t from 'tap'
import assert from 'node:assert/strict'
import pg from 'pg'
import { sql } from 'kysely'
import { bearer, build } from '../helper.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { eventually } from '../support/eventually.ts'
import { untilReadiness } from '../support/readiness.ts'
import { forwardedService } from '../support/tcp-forwarder.ts'

t.test('PostgreSQL unreachable from the start, then back, then lost mid-run, then back', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const { proxy, url: viaProxy } = await forwardedService(t, url, 5432)
  await proxy.down() // the port is known and refuses connections
  const app = await build(t, { env: { DATABASE_URL: viaProxy, HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0' } })

  // The database check has run and failed: readiness says why, not merely that boot is not over.
  const down = await eventually(async () => {
    const res = await app.inject('/health/ready')
    assert.equal(res.json().status, 'Unhealthy')
    return res
  }, { timeout: 20_000, interval: 100 })
  t.equal(down.statusCode, 503)
  t.not(down.json().checks.database, 'Healthy')
  t.notMatch(down.body, /127\.0\.0\.1|postgres:|ECONNREFUSED|password/)
  t.equal((await app.inject('/health/startup')).statusCode, 200, 'boot is over: the database gates readiness, never startup')
  t.equal((await app.inject('/health/live')).statusCode, 200, 'alive while the database is down')
  t.equal((await app.inject('/ping')).statusCode, 200)

  await proxy.up()
  await untilReadiness(app, 200)
  t.same((await app.inject('/health/ready')).json().checks, { configuration: 'Healthy', database: 'Healthy', migrations: 'Healthy' })
  t.equal((await app.inject('/health/startup')).statusCode, 200)

  await proxy.down()
  await untilReadiness(app, 503)
  const lost = await app.inject('/health/ready')
  t.equal(lost.json().status, 'Unhealthy')
  t.equal(lost.json().checks.database, 'Unhealthy')
  t.equal((await app.inject('/health/startup')).statusCode, 200, 'startup stays finished')
  t.equal((await app.inject('/health/live')).statusCode, 200)
  const one = await app.inject({ url: '/health/database', headers: await bearer({ scope: 'health:read' }) })
  t.equal(one.statusCode, 503)
  t.notMatch(one.body, /127\.0\.0\.1|ECONNREFUSED/)

  await proxy.up()
  await untilReadiness(app, 200)
  t.pass('recovered without a restart')
})

t.test('a pool held by busy requests does not make the database look down', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const app = await build(t, { env: { DATABASE_URL: url, HEALTH_CACHE_TTL_MS: '0' } })
  await untilReadiness(app, 200)
  // Every pooled connection (ten by default) busy far longer than the database check's 1 s timeout,
  // until the test cancels them.
  const busy = Promise.allSettled(Array.from({ length: 10 }, async () => await sql`select pg_sleep(60)`.execute(app.storage.db)))
  const observer = new pg.Client({ connectionString: url })
  await observer.connect()
  t.teardown(() => observer.end())
  const sleepers = "select pid from pg_stat_activity where datname = current_database() and query like 'select pg_sleep(60)%' and state = 'active'"
  await eventually(async () => {
    const { rowCount } = await observer.query(sleepers)
    assert.equal(rowCount, 10, `${rowCount} pooled connections busy`)
  }, { timeout: 20_000, interval: 50 })
  const res = await app.inject({ url: '/health/database', headers: await bearer({ scope: 'health:read' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'Healthy', 'the check has a connection of its own')
  await observer.query(`select pg_cancel_backend(pid) from (${sleepers}) as busy`)
  await busy
})
