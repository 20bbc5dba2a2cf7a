// The queue takes a subscription's batches in the order their dispatch transactions began, not the order
// they committed. A dispatch that began first but got the position's lock second must not let a
// subject's later event overtake its earlier one.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { KyselyPlugin } from 'kysely'
import { appendEvents } from '../../src/storage/event-log.ts'
import { startDeliveryQueue } from '../../src/webhooks/delivery-queue.ts'
import { dispatchEvents } from '../../src/webhooks/dispatch.ts'
import { EventBodies } from '../../src/webhooks/event-bodies.ts'
import { migratedStorage } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'

/** Holds the first statement's result until `release`: its transaction has begun, but goes no further. */
function holdFirstStatement (): { plugin: KyselyPlugin, held: Promise<void>, release: () => void } {
  let reached!: () => void
  let release!: () => void
  const held = new Promise<void>(resolve => { reached = resolve })
  const released = new Promise<void>(resolve => { release = resolve })
  let first = true
  return {
    plugin: {
      transformQuery: ({ node }) => node,
      async transformResult ({ result }) {
        if (!first) return result
        first = false
        reached()
        await released
        return result
      }
    },
    held,
    release
  }
}

t.test('a dispatch that began before the last one does not queue a subject\'s later event ahead', async t => {
  const database = await migratedStorage(t, 'postgres')
  if (database === undefined) return
  const { db } = database
  await db.insertInto('webhooks').values({ url: 'http://127.0.0.1:9/hook', tipos: [], ativo: true, criado_por: 'test', escopos: ['eventos:read'], segredo: 'whsec_x', desde_evento: 0 }).execute()
  const subject = { kind: 'vaga' as const, id: randomUUID() }
  const event = async (type: string): Promise<void> => {
    await db.transaction().execute(async trx => { await appendEvents(trx, [{ type, actor: 'test', subject, data: null }]) })
  }

  const delivered: number[] = []
  // The worker fetches on its start and when woken, so both deliveries wait queued until then.
  const queue = await startDeliveryQueue(database, {
    workers: 1, perSubscription: 1, pollingSeconds: 3600, retryLimit: 0, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 60, batchExpireSeconds: 60, failingAfterSeconds: 60, listen: false
  }, { batch: async job => { delivered.push(...job.eventIds) }, delivery: async () => undefined }, () => {})
  t.teardown(queue.stop)
  const bodies = new EventBodies(db, () => null)
  // Makes the position's row, which the first dispatch would otherwise make under the held statement.
  await dispatchEvents(db, queue, bodies)

  await event('vaga.criada')
  const early = holdFirstStatement()
  const earlyDispatch = dispatchEvents(db.withPlugin(early.plugin), queue, bodies)
  await early.held
  t.equal(await dispatchEvents(db, queue, bodies), 1, 'a dispatch begun later queues the first event\'s batch')
  await event('vaga.alterada')
  early.release()
  await earlyDispatch
  // The next interval's dispatch, for whatever the early one left.
  await dispatchEvents(db, queue, bodies)

  await eventually(() => {
    queue.wake()
    assert.equal(delivered.length, 2)
  }, { interval: 100 })
  t.same(delivered, [1, 2], 'the subject\'s events are delivered in order')
})
