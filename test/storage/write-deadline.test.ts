import t from 'tap'
import assert from 'node:assert/strict'
import pg from 'pg'
import { sql } from 'kysely'
import { createDatabase } from '../../src/storage/database.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import { withoutStatementDeadline } from '../../src/storage/statement-deadline.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import { ALL_SCOPES, bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'
import { freshPostgresDatabase } from '../support/services.ts'

const ALL = { scope: ALL_SCOPES }
// The database's deadline is a second under it: a statement waiting for a lock gives up after 1 s.
const HANDLER_TIMEOUT = '2000'
// Longer than HANDLER_TIMEOUT: the lock is what the test is about, so it is held for a set time.
const LOCK_HELD_MS = 4000

/** Holds every table of the service locked for `heldMs`, as a long migration or a stuck session would. */
async function holdLocks (url: string, heldMs = LOCK_HELD_MS): Promise<{ released: Promise<void> }> {
  const locker = new pg.Client({ connectionString: url })
  await locker.connect()
  await locker.query('BEGIN')
  await locker.query('LOCK TABLE vagas, candidatos, candidato_acoes, idempotency_keys IN ACCESS EXCLUSIVE MODE')
  const released = (async () => {
    await sleep(heldMs)
    await locker.query('ROLLBACK')
    await locker.end()
  })()
  return { released }
}

async function query (url: string, text: string, values: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return Number((await client.query(text, values)).rows[0].count)
  } finally {
    await client.end()
  }
}

const storedCount = async (url: string, email: string) => await query(url, 'select count(*) from candidatos where email like $1', [email])
const waitingForLocks = async (url: string) => await query(url, "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")

t.test('under a held lock every write answers in time, and a 503 means nothing changed', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const app = await build(t, { env: { DATABASE_URL: url, HANDLER_TIMEOUT } })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer(ALL)
  const create = async (path: string, payload: object) => (await app.inject({ method: 'POST', url: `/api/v2/${path}`, headers, payload })).json() as { id: string }
  const [patched, replaced, removed] = [await create('vagas', { titulo: 'A' }), await create('vagas', { titulo: 'B' }), await create('vagas', { titulo: 'C' })]
  const candidato = await create('candidatos', { nome: 'Ana', email: 'ana.deadline@example.com' })
  t.equal((await app.inject({ method: 'POST', url: `/api/v2/candidatos/${candidato.id}/candidatar`, headers, payload: { vagaId: patched.id } })).statusCode, 200)

  const { released } = await holdLocks(url)
  const started = Date.now()
  const [patch, put, post, action, remove] = await Promise.all([
    app.inject({ method: 'PATCH', url: `/api/v2/vagas/${patched.id}`, headers, payload: { titulo: 'A2' } }),
    app.inject({ method: 'PUT', url: `/api/v2/vagas/${replaced.id}`, headers, payload: { titulo: 'B2', status: 'aberta' } }),
    app.inject({ method: 'POST', url: '/api/v2/candidatos', headers, payload: { nome: 'Bia', email: 'bia.deadline@example.com' } }),
    app.inject({ method: 'POST', url: `/api/v2/candidatos/${candidato.id}/aprovar`, headers }),
    app.inject({ method: 'DELETE', url: `/api/v2/vagas/${removed.id}`, headers })
  ])
  const took = Date.now() - started
  await released

  t.ok(took < LOCK_HELD_MS, `every write answered before the lock was released (${took} ms)`)
  const read = async (path: string) => await app.inject({ url: `/api/v2/${path}`, headers })
  const outcomes: Array<[string, number, number, boolean]> = [
    ['PATCH', patch.statusCode, 200, (await read(`vagas/${patched.id}`)).json().titulo === 'A2'],
    ['PUT', put.statusCode, 200, (await read(`vagas/${replaced.id}`)).json().titulo === 'B2'],
    ['POST create', post.statusCode, 201, await storedCount(url, 'bia.deadline@example.com') === 1],
    ['POST aprovar', action.statusCode, 200, (await read(`candidatos/${candidato.id}`)).json().status === 'aprovado'],
    ['DELETE', remove.statusCode, 204, (await read(`vagas/${removed.id}`)).statusCode === 404]
  ]
  for (const [what, status, success, changed] of outcomes) {
    t.ok(status === 503 || status === success, `${what}: ${status}`)
    t.equal(changed, status === success, `${what}: ${status === 503 ? 'a 503 left the data as it was' : 'the success is stored'}`)
  }
  for (const answer of [patch, put, post, action, remove].filter(answer => answer.statusCode === 503)) {
    t.match(answer.json(), { code: 'HandlerTimeout' })
    t.ok(Number(answer.headers['retry-after']) > 0)
  }
})

t.test('SIGTERM while creates wait for a lock: each answers 503 with nothing stored, and the process exits 0', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  // The lock outlasts the shutdown bound: a create still waiting then would be cut off unanswered.
  const server = await startServerProcess(t, { DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: '2500', SHUTDOWN_TIMEOUT_MS: '5000' })
  await untilReady(server.url, 60_000)
  const headers = { ...await bearer(ALL), 'content-type': 'application/json' }
  const { released } = await holdLocks(url, 8000)
  const create = async (i: number) => {
    try {
      const res = await fetch(`${server.url}/api/v2/candidatos`, { method: 'POST', headers, body: JSON.stringify({ nome: `Caio ${i}`, email: `caio${i}.sigterm@example.com` }) })
      return res.status
    } catch {
      return 'no answer'
    }
  }
  // One after another, each once the previous one's statement waits for the lock (creates sent in
  // the same turn would share one insert): the signal comes once all three wait.
  const creates: Array<Promise<number | string>> = []
  for (const i of [1, 2, 3]) {
    creates.push(create(i))
    await eventually(async () => { assert.equal(await waitingForLocks(url), i) }, { timeout: 20_000, interval: 50 })
  }
  server.child.kill('SIGTERM')
  const statuses = await Promise.all(creates)
  t.equal(await server.exited, 0, 'a clean exit')
  await released

  const stored = await storedCount(url, '%.sigterm@example.com')
  t.same(statuses.filter(status => status !== 503 && status !== 201), [], `every create answered: ${statuses.join(', ')}`)
  t.equal(stored, statuses.filter(status => status === 201).length, 'exactly the acknowledged rows are stored')
})

t.test('a request\'s statements meet the deadline; the service\'s own long work (migrations, the purge) does not', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const database = createDatabase({ url, dataDir: '', poolSize: 2, statementTimeoutMs: 200 })
  t.teardown(() => database.close())
  await t.rejects(sql`select pg_sleep(0.5)`.execute(database.db), { code: '57014' }, 'a statement past the deadline is cancelled')
  const slept = await database.db.transaction().execute(async trx => {
    await withoutStatementDeadline(trx)
    return (await sql<{ done: boolean }>`select true as done from pg_sleep(0.5)`.execute(trx)).rows[0]?.done
  })
  t.equal(slept, true, 'lifted for the rest of a transaction')
  await t.rejects(sql`select pg_sleep(0.5)`.execute(database.db), { code: '57014' }, 'and only for it')
  t.ok((await migrateToLatest(database.db)).length > 0, 'the migrations run on the same pool')
})
