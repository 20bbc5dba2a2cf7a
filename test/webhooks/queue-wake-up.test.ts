// A worker takes a batch another process queued as soon as it is committed, not at its next poll:
// the batches are announced with PostgreSQL's NOTIFY, which every worker's pg-boss listens for.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { startDeliveryQueue, type DeliveryQueueSettings } from '../../src/webhooks/delivery-queue.ts'
import { migratedStorage } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'

// The worker's next poll is this far away once its first fetch found nothing.
const POLLING_SECONDS = 60
const SETTINGS: DeliveryQueueSettings = {
  workers: 1, perSubscription: 1, pollingSeconds: POLLING_SECONDS, retryLimit: 0, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 60, batchExpireSeconds: 60, failingAfterSeconds: 60, listen: true
}

t.test('a worker a minute from its next poll takes a batch another process queued at once', async t => {
  const database = await migratedStorage(t, 'postgres')
  if (database === undefined) return
  const taken: number[] = []
  const worker = await startDeliveryQueue(database, SETTINGS, {
    batch: async job => { taken.push(...job.eventIds) },
    delivery: async () => undefined
  }, () => {})
  t.teardown(worker.stop)
  // Another process's queue, as an API process runs it: it queues and works nothing.
  const api = await startDeliveryQueue(database, SETTINGS, undefined, () => {})
  t.teardown(api.stop)

  await database.db.transaction().execute(async trx => { await api.addBatches(trx, [{ webhookId: randomUUID(), eventIds: [1] }]) })
  // Well within the poll: only the announcement can have woken it.
  await eventually(() => { assert.deepEqual(taken, [1]) }, { timeout: POLLING_SECONDS * 1000 / 3, interval: 100 })
  t.pass('the worker took the batch before its next poll')
})
