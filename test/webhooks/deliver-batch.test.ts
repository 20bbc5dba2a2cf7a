// A batch on its last try sends nothing itself: every event goes to the retry queue, which delivers
// it, each subject's in order. A batch that keeps failing is given up, its events are not.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { appendEvents } from '../../src/storage/event-log.ts'
import { createEventosRepository } from '../../src/storage/eventos-repository.ts'
import { createWebhookDeliveriesRepository } from '../../src/storage/webhook-deliveries-repository.ts'
import { batchHandler, messageIdOf } from '../../src/webhooks/deliver-batch.ts'
import { deliveryHandler } from '../../src/webhooks/deliver.ts'
import { startDeliveryQueue } from '../../src/webhooks/delivery-queue.ts'
import { EventBodies } from '../../src/webhooks/event-bodies.ts'
import { migratedStorage } from '../support/database.ts'
import { eventually } from '../support/eventually.ts'
import { subscribedReceiver } from '../support/subscribed-receiver.ts'

t.test('a batch on its last try queues its events as single deliveries, which arrive in order', async t => {
  const database = await migratedStorage(t, 'postgres')
  if (database === undefined) return
  const { db } = database
  const { receiver, webhookId } = await subscribedReceiver(t, db)
  const [ana, bia] = [randomUUID(), randomUUID()]
  await db.transaction().execute(async trx => {
    await appendEvents(trx, ['candidato.criado', 'candidato.candidatar', 'candidato.aprovar'].map(type => ({ type, actor: 'test', subject: { kind: 'candidato', id: ana }, data: null })))
    await appendEvents(trx, [{ type: 'candidato.criado', actor: 'test', subject: { kind: 'candidato', id: bia }, data: null }])
  })
  const { items } = await createEventosRepository(db, 24).page({ filter: {}, limit: 10 })

  const deliveries = createWebhookDeliveriesRepository(db, 24)
  const settings = { timeoutMs: 5000, allowPrivateTargets: true, disableAfterSeconds: 3600, concurrency: 2, retryLimit: 3 }
  const queue = await startDeliveryQueue(database, {
    workers: 1, perSubscription: 1, pollingSeconds: 0.5, retryLimit: 3, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 60, batchExpireSeconds: 60, failingAfterSeconds: 60, listen: false
  }, { batch: async () => {}, delivery: deliveryHandler(deliveries, settings) }, () => {})
  t.teardown(queue.stop)

  await batchHandler(db, deliveries, new EventBodies(db, () => null), settings)({ webhookId, eventIds: items.map(event => event.id) }, queue, true)
  t.equal(receiver.deliveries.length, 0, 'the batch itself sent nothing')
  await eventually(() => {
    queue.wake()
    assert.equal(receiver.deliveries.length, 4)
  }, { interval: 100 })
  t.ok(receiver.deliveries.every(d => d.verified), 'every delivery verifies')
  const anasEvents = items.filter(event => event.subject.id === ana).map(event => messageIdOf(webhookId, event.id))
  t.same(receiver.deliveries.map(d => d.id).filter(id => anasEvents.includes(id)), anasEvents, 'one subject\'s events in order')
})
