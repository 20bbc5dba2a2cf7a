// A delivery whose last attempt is lost with its instance (the queue takes the attempt for lost and
// ends the job failed) would hold back its subject's later deliveries until pg-boss deletes it, days
// later. It has had its spare attempt for a lost one: it is given up, and the subject's later
// deliveries go on. A batch that ended failed is run again, past its last try: it queues its events
// as single deliveries, so none is lost.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { appendEvents } from '../../src/storage/event-log.ts'
import { createEventosRepository } from '../../src/storage/eventos-repository.ts'
import { createWebhookDeliveriesRepository } from '../../src/storage/webhook-deliveries-repository.ts'
import { batchHandler, messageIdOf } from '../../src/webhooks/deliver-batch.ts'
import { deliveryHandler } from '../../src/webhooks/deliver.ts'
import { EventBodies } from '../../src/webhooks/event-bodies.ts'
import { startDeliveryQueue, type DeliveryHandler, type DeliveryJob } from '../../src/webhooks/delivery-queue.ts'
import { BATCH_QUEUE } from '../../src/webhooks/queue-names.ts'
import { migratedStorage } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'
import { subscribedReceiver } from '../support/subscribed-receiver.ts'

t.test('a delivery whose attempts were all lost with their instance is given up, and its subject\'s later ones go on', async t => {
  const database = await migratedStorage(t, 'postgres')
  if (database === undefined) return
  const { db } = database
  const { receiver, webhookId } = await subscribedReceiver(t, db)
  const subjectId = randomUUID()
  const deliveryOf = (eventId: number): DeliveryJob => ({
    webhookId, eventId, subjectId, messageId: messageIdOf(webhookId, eventId), body: JSON.stringify({ type: 'candidato.criado', data: { id: eventId } })
  })
  const [first, second] = [deliveryOf(1), deliveryOf(2)]

  // The first delivery's attempts never end while `stopped`: their instance is gone, as far as the
  // queue knows. With no retry, a delivery has its attempt and one spare for a lost one: both are lost.
  const send = deliveryHandler(createWebhookDeliveriesRepository(db, 24), { timeoutMs: 5000, allowPrivateTargets: true, disableAfterSeconds: 3600 })
  let lostAttempts = 0
  let restart = (): void => {}
  const stopped = new Promise<void>(resolve => { restart = resolve })
  const delivery: DeliveryHandler = async (job, attempt) => {
    if (job.eventId === first.eventId && lostAttempts < 2) {
      lostAttempts++
      await stopped
      return undefined
    }
    return await send(job, attempt)
  }
  const queue = await startDeliveryQueue(database, {
    // Four workers, three of them the healthy lane's: the two lost attempts hold two for good here, as their
    // instance would have, and the third takes the next delivery.
    workers: 4, perSubscription: 2, pollingSeconds: 0.5, retryLimit: 0, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 2, batchExpireSeconds: 60, failingAfterSeconds: 60, listen: false
  }, { batch: async () => {}, delivery }, () => {})
  t.teardown(async () => {
    restart()
    await queue.stop()
  })
  await db.transaction().execute(async trx => { await queue.addDeliveries(trx, [first, second], { failingSeconds: null }) })

  await eventually(() => {
    queue.wake()
    assert.equal(receiver.deliveries.length, 1)
  }, { timeout: 60_000, interval: 200 })
  t.equal(lostAttempts, 2, 'both of its attempts were lost')
  // The next one is queued behind the lost one: it could go only once that one was given up.
  t.same(receiver.deliveries.map(d => d.id), [second.messageId], 'its subject\'s next delivery arrived')
  t.ok(receiver.deliveries[0]!.verified, 'and verifies')
})

t.test('a batch that ended failed is run again, and its events arrive', async t => {
  const database = await migratedStorage(t, 'postgres')
  if (database === undefined) return
  const { db } = database
  const { receiver, webhookId } = await subscribedReceiver(t, db)
  const subjectId = randomUUID()
  await db.transaction().execute(async trx => {
    await appendEvents(trx, ['candidato.criado', 'candidato.candidatar'].map(type => ({ type, actor: 'test', subject: { kind: 'candidato', id: subjectId }, data: null })))
  })
  const { items } = await createEventosRepository(db, 24).page({ filter: {}, limit: 10 })
  const settings = { timeoutMs: 5000, allowPrivateTargets: true, disableAfterSeconds: 3600, concurrency: 2, retryLimit: 3 }
  const deliveries = createWebhookDeliveriesRepository(db, 24)
  const queue = await startDeliveryQueue(database, {
    workers: 1, perSubscription: 1, pollingSeconds: 0.5, retryLimit: 3, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 2, batchExpireSeconds: 60, failingAfterSeconds: 60, listen: false
  }, { batch: batchHandler(db, deliveries, new EventBodies(db, () => null), settings), delivery: deliveryHandler(deliveries, settings) }, () => {})
  t.teardown(queue.stop)

  // Queued as pg-boss leaves a batch whose last try failed: no worker ever sees it otherwise.
  await db.transaction().execute(async trx => {
    await queue.addBatches(trx, [{ webhookId, eventIds: items.map(event => event.id) }])
    await sql`update webhook_jobs.job set state = 'failed', retry_count = retry_limit where name = ${BATCH_QUEUE}`.execute(trx)
  })
  await eventually(() => {
    queue.wake()
    assert.equal(receiver.deliveries.length, 2)
  }, { timeout: 60_000, interval: 200 })
  t.same(receiver.deliveries.map(d => d.id), items.map(event => messageIdOf(webhookId, event.id)), 'both events, in order')
})
