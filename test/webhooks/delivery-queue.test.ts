// The queue's own maintenance always completes: jobs past pg-boss's retention are deleted, so the
// job table does not grow without bound, on either database.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { startDeliveryQueue, type DeliveryJob } from '../../src/webhooks/delivery-queue.ts'
import { DELIVERY_JOBS_TABLE, DELIVERY_QUEUE } from '../../src/webhooks/queue-names.ts'
import { migratedStorage, type Backend } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'

const JOBS = sql.table(DELIVERY_JOBS_TABLE)
const DELIVERIES = 40

for (const backend of ['pglite', 'postgres'] as Backend[]) {
  t.test(`deliveries completed past their retention are deleted within two maintenance passes (${backend})`, async t => {
    const database = await migratedStorage(t, backend)
    if (database === undefined) return
    const { db } = database
    const errors: Error[] = []
    // An attempt limit of 2 s: the queue supervises, and so maintains, every second.
    const queue = await startDeliveryQueue(database, {
      workers: 2, perSubscription: 2, pollingSeconds: 0.5, retryLimit: 0, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 2, batchExpireSeconds: 4, failingAfterSeconds: 60, listen: false
    }, { batch: async () => {}, delivery: async () => undefined }, error => { errors.push(error) })
    t.teardown(queue.stop)

    const webhookId = randomUUID()
    const deliveries: DeliveryJob[] = Array.from({ length: DELIVERIES }, (_, i) => ({
      webhookId, eventId: i + 1, subjectId: randomUUID(), messageId: `msg_${i + 1}`, body: '{}'
    }))
    await db.transaction().execute(async trx => { await queue.addDeliveries(trx, deliveries, { failingSeconds: null }) })
    const count = async (where: 'completed' | 'any'): Promise<number> => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${JOBS}
        where name = ${DELIVERY_QUEUE} and (${where} = 'any' or state = 'completed')`.execute(db)
      return rows[0]!.n
    }
    await eventually(async () => {
      queue.wake()
      assert.equal(await count('completed'), DELIVERIES)
    }, { timeout: 60_000, interval: 200 })

    // Completed eight days ago, past pg-boss's seven days of retention.
    await sql`update ${JOBS} set completed_on = now() - interval '8 days' where name = ${DELIVERY_QUEUE}`.execute(db)
    await eventually(async () => { assert.equal(await count('any'), 0, 'completed jobs still there') }, { timeout: 60_000, interval: 250 })
    t.pass('every aged job was deleted')
    t.same(errors.map(error => error.message), [], 'no maintenance pass failed')
  })
}
