import t from 'tap'
import { sql } from 'kysely'
import { migratedDatabase } from '../support/database.ts'

// PGlite has one session; the embedded database shares it among the pool's connections. A
// parameterized query is a batch (Parse, Bind, Execute, Sync) whose unnamed statement another
// connection's Parse would replace, and a transaction holds the session until it ends.
t.test('embedded database: concurrent parameterized queries and transactions on many connections each get their own answer', async t => {
  const db = await migratedDatabase(t, 'pglite')
  if (db === undefined) return
  await sql`create table tally (id int primary key, owner int not null)`.execute(db)

  const reads = Array.from({ length: 300 }, async (_, i) => {
    // Each statement's text differs (the literal), so binding one connection's values to another's statement shows.
    const { rows } = await sql<{ n: number, literal: number }>`select ${i}::int as n, ${sql.lit(i)}::int as literal`.execute(db)
    return rows[0]?.n === i && rows[0]?.literal === i ? undefined : `query ${i} got ${JSON.stringify(rows)}`
  })
  const transactions = Array.from({ length: 20 }, async (_, owner) => {
    await db.transaction().execute(async trx => {
      for (let k = 0; k < 5; k++) await sql`insert into tally (id, owner) values (${owner * 100 + k}, ${owner})`.execute(trx)
      if (owner % 2 === 1) throw new Error('rolled back on purpose')
    }).catch((error: Error) => { if (error.message !== 'rolled back on purpose') throw error })
  })
  const wrong = (await Promise.all(reads)).filter(answer => answer !== undefined)
  await Promise.all(transactions)
  t.same(wrong, [], 'every query answered with its own parameters')
  const { rows } = await sql<{ owner: number, count: number }>`select owner, count(*)::int as count from tally group by owner order by owner`.execute(db)
  t.same(rows, Array.from({ length: 10 }, (_, i) => ({ owner: i * 2, count: 5 })), 'committed transactions kept all their rows, rolled-back ones none')
})
