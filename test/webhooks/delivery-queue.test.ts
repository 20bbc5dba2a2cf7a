import t from 'tap'
import { sql } from 'kysely'
import { fromKysely } from 'pg-boss'
import { createDatabase } from '../../src/storage/database.js'
import { onServicePool } from '../../src/webhooks/delivery-queue.js'
import { emptyDataDir } from '../support/pglite-template.js'
import { freshPostgresDatabase } from '../support/services.js'

// pg-boss sends some transactions as one query; one that fails half-way must not leave the service's
// pooled connection inside a failed transaction (the service's next request would answer 500).
t.test('a pg-boss query that fails inside its own transaction leaves the pool usable', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const database = createDatabase({ url, poolSize: 1, dataDir: emptyDataDir(t) })
  t.teardown(() => database.close())
  await database.open()
  const { db } = database

  await t.rejects(onServicePool(db).executeSql('begin; select 1 / 0; commit'), { code: '22012' })
  const { rows } = await db.transaction().execute(async trx => await sql<{ one: number }>`select 1 as one`.execute(trx))
  t.same(rows, [{ one: 1 }], 'the next transaction on the one pooled connection works')

  // What the plain adapter leaves behind, for contrast: the connection stays in the failed transaction.
  await t.rejects(fromKysely(db).executeSql('begin; select 1 / 0; commit'), { code: '22012' })
  await t.rejects(db.transaction().execute(async trx => await sql`select 1`.execute(trx)), { code: '25P02' })
})
