// A delivery whose last attempt is lost with its instance (the queue takes the attempt for lost and
// ends the job failed) would hold back its subject's later deliveries until the queue deletes it, days
// later. The queue attempts it once more, and the subject's later deliveries follow it, in order.
import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createWebhookDeliveriesRepository } from '../../src/storage/webhook-deliveries-repository.js'
import { messageIdOf } from '../../src/webhooks/deliver-batch.js'
import { deliveryHandler } from '../../src/webhooks/deliver.js'
import { startDeliveryQueue, type DeliveryHandler, type DeliveryJob } from '../../src/webhooks/delivery-queue.js'
import { migratedDatabase } from '../support/database.js'
import { eventually } from '../support/eventually.js'
import { subscribedReceiver } from '../support/subscribed-receiver.js'

t.test('a delivery whose last attempt was lost with its instance is attempted once more, and its subject\'s later ones follow', async t => {
  const db = await migratedDatabase(t, 'postgres')
  if (db === undefined) return
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
      return await stopped
    }
    await send(job, attempt)
  }
  const queue = await startDeliveryQueue(db, {
    workers: 3, perSubscription: 2, pollingSeconds: 0.5, retryLimit: 0, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireSeconds: 2, batchExpireSeconds: 60
  }, { batch: async () => {}, delivery }, () => {})
  t.teardown(async () => {
    restart()
    await queue.stop()
  })
  await db.transaction().execute(async trx => { await queue.addDeliveries(trx, [first, second]) })

  await eventually(() => {
    queue.wake()
    assert.equal(receiver.deliveries.length, 2)
  }, { timeout: 60_000, interval: 200 })
  t.equal(lostAttempts, 2, 'both of its attempts were lost')
  t.same(receiver.deliveries.map(d => d.id), [first.messageId, second.messageId], 'the lost delivery arrived, then its subject\'s next')
  t.ok(receiver.deliveries.every(d => d.verified), 'both verify')
})
