import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { tcpForwarder } from '../support/tcp-forwarder.ts'

async function untilState (app: FastifyInstance, wanted: string): Promise<void> {
  await eventually(() => { assert.equal(app.storage.state(), wanted, `storage is ${app.storage.state()}, waiting for ${wanted}`) }, { timeout: 15_000, interval: 50 })
}

async function exercise (t: Test, app: FastifyInstance): Promise<void> {
  await app.storage.whenReady()
  t.equal(app.storage.state(), 'ready')
  t.same(await app.storage.pendingMigrations(), [], 'every migration is applied')
  await app.storage.ping()
  const db = app.storage.db
  await sql`create table probe (id serial primary key, label text not null)`.execute(db)
  // Many callers at once, and a transaction that fails half-way: nothing of it may remain.
  await Promise.all(Array.from({ length: 20 }, (_, i) => sql`insert into probe (label) values (${`row-${i}`})`.execute(db)))
  await t.rejects(db.transaction().execute(async trx => {
    await sql`insert into probe (label) values ('half')`.execute(trx)
    await sql`insert into probe (label) values (null)`.execute(trx)
  }))
  const { rows } = await sql<{ count: number }>`select count(*)::int as count from probe`.execute(db)
  t.equal(rows[0]?.count, 20, 'concurrent writes all landed; the failed transaction left nothing')
  const half = await sql<{ n: number }>`select count(*)::int as n from probe where label = 'half'`.execute(db)
  t.equal(half.rows[0]?.n, 0)
}

t.test('embedded PGlite: opens, migrates, runs concurrent queries and transactions', async t => {
  const app = await build(t, { ownDatabaseProcess: true }) // a new database, migrated at start as in production
  t.equal(app.storage.kind, 'pglite')
  await exercise(t, app)
})

t.test('PostgreSQL: opens, migrates, runs concurrent queries and transactions', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const app = await build(t, { env: { DATABASE_URL: url } })
  t.equal(app.storage.kind, 'postgres')
  await exercise(t, app)
})

t.test('PostgreSQL unreachable at start: the service starts, answers 503 problems, and recovers by itself', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const proxy = tcpForwarder(new URL(url), 5432)
  await proxy.up()
  await proxy.down() // the port is known and now refuses connections
  const viaProxy = new URL(url)
  viaProxy.port = String(proxy.port.value)
  const app = await build(t, {
    env: { DATABASE_URL: viaProxy.toString(), RETRY_AFTER_SECONDS: '11' },
    extraRoutes: scope => scope.get('/probe-count', async () => {
      scope.storage.assertReady()
      await scope.storage.ping()
      return { ok: true }
    })
  })
  t.teardown(() => proxy.down())
  await untilState(app, 'unavailable')
  t.equal((await app.inject('/ping')).statusCode, 200, 'the process answers')
  const refused = await app.inject('/probe-count')
  t.equal(refused.statusCode, 503)
  t.match(refused.json(), { code: 'DatabaseUnavailable', status: 503 })
  t.equal(refused.headers['retry-after'], '11', 'RETRY_AFTER_SECONDS')
  t.notMatch(refused.body, /127\.0\.0\.1|postgres|ECONNREFUSED/)

  await proxy.up()
  await untilState(app, 'ready')
  t.equal((await app.inject('/probe-count')).statusCode, 200, 'recovered without a restart')

  await proxy.down()
  const lost = await app.inject('/probe-count')
  t.equal(lost.statusCode, 503, 'a database lost mid-run answers 503, not 500')
  t.match(lost.json(), { code: 'DatabaseUnavailable' })
  t.equal(lost.headers['retry-after'], '11')
  t.equal(lost.json().detail, refused.json().detail, 'one detail, whether the outage was known before the request or met by it')
})

t.test('PostgreSQL pool settings: a request that cannot get a connection within DATABASE_POOL_TIMEOUT_MS answers 503', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const app = await build(t, {
    env: { DATABASE_URL: url, DATABASE_POOL_SIZE: '1', DATABASE_POOL_TIMEOUT_MS: '300' },
    extraRoutes: scope => scope.get('/probe-query', async () => {
      await sql`select 1`.execute(scope.storage.db)
      return { ok: true }
    })
  })
  await app.storage.whenReady()
  // The pool's only connection is held by a transaction until the test lets it go, or for 20 s at most:
  // a request that waited for it instead of the 300 ms pool timeout would fail the bound below.
  let release = (): void => {}
  const released = new Promise<void>(resolve => {
    release = resolve
    setTimeout(resolve, 20_000).unref() // a bound, not a wait
  })
  let taken = (): void => {}
  const connectionTaken = new Promise<void>(resolve => { taken = resolve })
  const holding = app.storage.db.transaction().execute(async trx => {
    await sql`select 1`.execute(trx)
    taken()
    await released
  })
  await connectionTaken
  const started = Date.now()
  const refused = await app.inject('/probe-query')
  const waited = Date.now() - started
  release()
  t.equal(refused.statusCode, 503)
  t.match(refused.json(), { code: 'DatabaseUnavailable', status: 503 })
  t.ok(waited >= 250 && waited < 10_000, `answered after the configured wait, not after the query (${waited} ms)`)
  await holding
  t.equal((await app.inject('/probe-query')).statusCode, 200, 'the connection serves again once released')
})
