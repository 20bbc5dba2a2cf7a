// The feed's order: writers on their own connections, begun one after another, write and then hold
// their transactions open for different spans, so they commit in another order than they wrote, while
// a reader polls with its last position. It must see every committed event exactly once, in id order,
// each transaction's events in the order it wrote them.
import t from 'tap'
import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import fc from 'fast-check'
import { sql } from 'kysely'
import { createCandidatosRepository } from '../../src/storage/candidatos-repository.ts'
import { createEventosRepository, type EventRecord } from '../../src/storage/eventos-repository.ts'
import { createVagasRepository } from '../../src/storage/vagas-repository.ts'
import { migratedDatabase } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'

const WRITERS = 8
const RUNS = 15

t.test('8 concurrent writers and a polling reader: each committed event seen once, in order', async t => {
  const db = await migratedDatabase(t, 'postgres')
  if (db === undefined) return
  const eventos = createEventosRepository(db, 24)
  let run = 0

  // Per writer, how many turns of the event loop it holds its transaction open after writing.
  const holds = fc.array(fc.nat({ max: 20 }), { minLength: WRITERS, maxLength: WRITERS })
  await fc.assert(fc.asyncProperty(holds, async hold => {
    run++
    const start = Number((await sql<{ last: number | null }>`select max(id) as last from eventos`.execute(db)).rows[0]?.last ?? 0)

    const writer = async (i: number): Promise<void> => {
      const actor = `writer-${run}-${i}`
      await db.transaction().execute(async trx => {
        await createVagasRepository(trx).create({ titulo: `Vaga ${run}-${i}`, descricao: null, status: 'aberta' }, actor)
        await createCandidatosRepository(trx).create({ nome: `Pessoa ${run}-${i}`, email: `p-${run}-${i}@example.com` }, actor)
        for (let n = 0; n < hold[i]!; n++) await nextTurn()
      })
    }

    const seen: EventRecord[] = []
    let position = start
    let writing = true
    const reader = eventually(async () => {
      const page = await eventos.page({ filter: {}, after: position, limit: 3 })
      seen.push(...page.items)
      position = page.next
      assert.ok(!writing && seen.length >= 2 * WRITERS, `${seen.length} events seen so far`)
    }, { interval: 1 })

    await Promise.all(Array.from({ length: WRITERS }, async (_, i) => await writer(i)))
    writing = false
    await reader

    const stored = (await sql<{ id: number }>`select id from eventos where id > ${start} order by id`.execute(db)).rows.map(row => Number(row.id))
    assert.deepEqual(seen.map(event => event.id), stored, 'every committed event, once, in id order')
    assert.equal(stored.length, 2 * WRITERS)
    for (let i = 0; i < WRITERS; i++) {
      const mine = seen.filter(event => event.actor === `writer-${run}-${i}`).map(event => event.type)
      assert.deepEqual(mine, ['vaga.criada', 'candidato.criado'], 'each transaction\'s events, in the order it wrote them')
    }
  }), { numRuns: RUNS })
  t.pass(`${RUNS} interleavings of ${WRITERS} writers`)
})
