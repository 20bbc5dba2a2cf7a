import t from 'tap'
import { sql } from 'kysely'
import { createDatabase } from '../../src/storage/database.ts'
import { freshDataDir } from '../support/pglite-template.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { startOwnPgBouncer } from '../support/pgbouncer.ts'
import { bearer, build } from '../helper.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import { createCandidatosRepository } from '../../src/storage/candidatos-repository.ts'
import { createVagasRepository } from '../../src/storage/vagas-repository.ts'

t.test('PostgreSQL: a parameterised statement is prepared under a name once per connection, then reused', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  // One connection, so the session that prepared the statement is the one asked about it.
  const database = createDatabase({ url, dataDir: await freshDataDir(t), poolSize: 1 })
  t.teardown(() => database.close())
  const answers = []
  for (const value of [1, 2, 3]) answers.push((await sql<{ doubled: number }>`select ${value}::int * 2 as "doubled"`.execute(database.db)).rows[0]?.doubled)
  t.same(answers, [2, 4, 6], 'each execution binds its own values')
  const prepared = await sql<{ name: string, statement: string }>`select name, statement from pg_prepared_statements`.execute(database.db)
  t.match(prepared.rows, [{ name: /^s\d+$/, statement: 'select $1::int * 2 as "doubled"' }], 'prepared once, under its name')
  t.equal(prepared.rows.length, 1, 'statements without parameters stay unnamed')
})

t.test('embedded database: connections that share its one session send unnamed statements, so none collide', async t => {
  const database = createDatabase({ dataDir: await freshDataDir(t), poolSize: 4 })
  t.teardown(() => database.close())
  await database.open()
  const answers = await Promise.all(Array.from({ length: 24 }, async (_, i) =>
    (await sql<{ doubled: number }>`select ${i}::int * 2 as "doubled"`.execute(database.db)).rows[0]?.doubled))
  t.same(answers, Array.from({ length: 24 }, (_, i) => i * 2))
  const prepared = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(database.db)
  t.same(prepared.rows, [], 'nothing named in the shared session')
})

t.test('PostgreSQL: a column a newer instance\'s migration adds does not break the statements this one prepared', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  // One connection, so every statement below runs in the session that prepared it.
  const database = createDatabase({ url, dataDir: await freshDataDir(t), poolSize: 1 })
  t.teardown(() => database.close())
  await database.open()
  await migrateToLatest(database.db)
  const vagas = createVagasRepository(database.db)
  const candidatos = createCandidatosRepository(database.db)
  const byNewest = { filter: {}, sort: [{ field: 'criadoEm' as const, direction: 'desc' as const }], limit: 20 }
  const useEveryStatement = async (n: number) => {
    const vaga = await vagas.create({ titulo: `Vaga ${n}`, descricao: null, status: 'aberta' }, 'tester')
    await vagas.update(vaga.id, { titulo: `Vaga ${n}, revista` }, 'tester')
    await vagas.findById(vaga.id)
    await vagas.list({ ...byNewest, page: { kind: 'offset', offset: 0 } })
    await vagas.list({ ...byNewest, page: { kind: 'cursor' } })
    const candidato = await candidatos.create({ nome: `Pessoa ${n}`, email: `pessoa${n}@example.com` }, 'tester')
    await candidatos.findById(candidato.id)
    await candidatos.list({ ...byNewest, page: { kind: 'offset', offset: 0 } })
    return vaga
  }
  await useEveryStatement(1)
  // What a rolling deployment does: the new version's migration adds columns while this one serves.
  await sql`alter table vagas add column notas text`.execute(database.db)
  await sql`alter table candidatos add column notas text`.execute(database.db)
  const vaga = await useEveryStatement(2)
  t.equal((await vagas.findById(vaga.id))?.titulo, 'Vaga 2, revista', 'reads, lists and writes still answer')
  t.equal((await vagas.list({ ...byNewest, page: { kind: 'offset', offset: 0 } })).total, 2)
})

t.test('PostgreSQL with preparedStatements false (behind a pooler in transaction mode): nothing is named', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const database = createDatabase({ url, dataDir: await freshDataDir(t), poolSize: 1, preparedStatements: false })
  t.teardown(() => database.close())
  t.equal((await sql<{ doubled: number }>`select ${4}::int * 2 as "doubled"`.execute(database.db)).rows[0]?.doubled, 8)
  const prepared = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(database.db)
  t.same(prepared.rows, [], 'the statement went unnamed')
})

t.test('behind a pooler in transaction mode, the first refused named statement switches the service to unnamed ones', async t => {
  const databaseUrl = await freshPostgresDatabase(t)
  if (databaseUrl === undefined) return
  const viaPooler = await startOwnPgBouncer(t, databaseUrl, 'transaction')
  if (viaPooler === undefined) return
  const lines: string[] = []
  const app = await build(t, { env: { DATABASE_URL: viaPooler, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '8' }, logStream: { write: line => { lines.push(line) } } })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: 'vagas:read vagas:write' })
  const statuses = new Map<number, number>()
  for (let round = 0; round < 10; round++) {
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => (i % 2 === 0
      ? await app.inject({ method: 'POST', url: '/api/v2/vagas', headers, payload: { titulo: `Vaga ${round}.${i}` } })
      : await app.inject({ url: '/api/v2/vagas?limit=5', headers })).statusCode))
    for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1)
  }
  t.notOk(statuses.has(500), `no 500 (${JSON.stringify(Object.fromEntries(statuses))})`)
  t.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) >= 190, 'at most the first few requests meet the refusal, as a 503')
  t.equal(lines.filter(line => line.includes('refused named prepared statements')).length, 1, 'said once, in one line')
  const after = await Promise.all(Array.from({ length: 20 }, async () => (await app.inject({ url: '/api/v2/vagas?limit=5', headers })).statusCode))
  t.same([...new Set(after)], [200], 'then every request is served')
})
