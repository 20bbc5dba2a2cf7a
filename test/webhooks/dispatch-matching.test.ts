// The dispatch's cost follows the subscriptions its events match, not those that exist: ten thousand
// subscriptions to a type no event has are not read at all, and events still reach the one that
// takes them.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { sql, type KyselyPlugin } from 'kysely'
import { appendEvents } from '../../src/storage/event-log.ts'
import type { BatchJob } from '../../src/webhooks/delivery-queue.ts'
import { dispatchEvents } from '../../src/webhooks/dispatch.ts'
import { EventBodies } from '../../src/webhooks/event-bodies.ts'
import { migratedStorage, type Backend } from '../support/database.ts'

/** Counts the rows every statement returns. */
function rowCounter (): { plugin: KyselyPlugin, rows: () => number } {
  let rows = 0
  return {
    plugin: {
      transformQuery: ({ node }) => node,
      async transformResult ({ result }) {
        rows += result.rows.length
        return result
      }
    },
    rows: () => rows
  }
}

async function tenThousandNotMatching (t: Test, backend: Backend): Promise<void> {
  const database = await migratedStorage(t, backend)
  if (database === undefined) return
  const { db } = database
  await sql`insert into webhooks (url, tipos, criado_por, escopos, segredo, desde_evento)
    select 'http://127.0.0.1:9/hook', '{nada.acontece}', 'test', '{eventos:read}', 'whsec_x', 0 from generate_series(1, 10000)`.execute(db)
  const vagas = await db.insertInto('webhooks').values({ url: 'http://127.0.0.1:9/vagas', tipos: ['vaga.criada'], ativo: true, criado_por: 'test', escopos: ['eventos:read'], segredo: 'whsec_x', desde_evento: 0 })
    .returning('id').executeTakeFirstOrThrow()
  const everything = await db.insertInto('webhooks').values({ url: 'http://127.0.0.1:9/tudo', tipos: [], ativo: true, criado_por: 'test', escopos: ['eventos:read'], segredo: 'whsec_x', desde_evento: 0 })
    .returning('id').executeTakeFirstOrThrow()
  await db.transaction().execute(async trx => {
    await appendEvents(trx, [
      { type: 'vaga.criada', actor: 'test', subject: { kind: 'vaga', id: randomUUID() }, data: null },
      { type: 'candidato.criado', actor: 'test', subject: { kind: 'candidato', id: randomUUID() }, data: null }
    ])
  })

  const queued: BatchJob[] = []
  const queue = { addBatches: async (_trx: unknown, batches: readonly BatchJob[]) => { queued.push(...batches) } }
  const counter = rowCounter()
  t.equal(await dispatchEvents(db.withPlugin(counter.plugin), queue, new EventBodies(db, () => null)), 2, 'two batches queued')
  t.same(queued.map(batch => [batch.webhookId, batch.eventIds]).sort(), [[vagas.id, [1]], [everything.id, [1, 2]]].sort(),
    'the subscription to the type, and the one to every type, each get their events')
  t.ok(counter.rows() < 20, `the dispatch read ${counter.rows()} rows, none of the ten thousand`)
}

t.test('ten thousand subscriptions that match nothing, on the embedded database', async t => { await tenThousandNotMatching(t, 'pglite') })
t.test('ten thousand subscriptions that match nothing, on PostgreSQL', async t => { await tenThousandNotMatching(t, 'postgres') })
