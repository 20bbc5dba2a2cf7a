import t from 'tap'
import { sql } from 'kysely'
import { createDatabase } from '../../src/storage/database.js'
import { freshDataDir } from '../support/pglite-template.js'
import { freshPostgresDatabase } from '../support/services.js'

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
