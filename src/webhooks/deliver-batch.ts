// A batch: one subscription's new events, sent straight from the dispatch. A subject's events go one
// after another, subjects side by side. What cannot go now becomes single deliveries of the retry
// queue, in one transaction with the batch's attempts: a failed event (retried on the schedule), the
// later events of its subject, the events of subjects with deliveries still there, and, once the
// receiver is unreachable (or was failing already) or the batch has run for a receiver's timeout,
// everything not yet sent.
import type { Kysely } from 'kysely'
import type { Schema } from '../storage/schema.ts'
import { recordAttempts, type NewAttempt, type WebhookDeliveriesRepository } from '../storage/webhook-deliveries-repository.ts'
import { sendSigned, signingTarget, type DeliverySettings } from './deliver.ts'
import type { BatchHandler, DeliveryJob } from './delivery-queue.ts'
import type { EventBodies, EventBody } from './event-bodies.ts'
import type { AttemptError } from '../domain/webhook-attempt.ts'

export interface BatchSettings extends DeliverySettings {
  /** WEBHOOK_CONCURRENCY: the batch's deliveries in flight at once. */
  concurrency: number
  /** WEBHOOK_RETRY_LIMIT: 0 leaves a failed event there. */
  retryLimit: number
}

/** The message id of an event's delivery to a subscription: the same for every attempt. */
export function messageIdOf (webhookId: string, eventId: number): string {
  return `msg_${webhookId.replaceAll('-', '')}_${eventId}`
}

// Failures that say the receiver cannot be reached at all: the rest of the batch would fail the same way.
const UNREACHABLE: ReadonlySet<AttemptError> = new Set(['connection', 'timeout', 'refused-target'])

/** Each subject's events, in order, subjects in the order of their first event. */
function bySubject (events: readonly EventBody[]): EventBody[][] {
  const chains = new Map<string, EventBody[]>()
  for (const event of events) {
    const chain = chains.get(event.subjectId)
    if (chain === undefined) chains.set(event.subjectId, [event])
    else chain.push(event)
  }
  return [...chains.values()]
}

export function batchHandler (db: Kysely<Schema>, deliveries: WebhookDeliveriesRepository, bodies: EventBodies, settings: BatchSettings): BatchHandler {
  return async (job, queue, lastTry) => {
    const subscription = await deliveries.target(job.webhookId)
    if (subscription === undefined) return // deleted or disabled since: nothing to send
    const target = signingTarget(subscription)
    // Those before it was last turned on again were dropped while it was off.
    const events = await bodies.get(job.eventIds.filter(id => id > subscription.afterEvent))
    const held = await queue.heldSubjects(job.webhookId, [...new Set(events.map(event => event.subjectId))])
    const attempts: NewAttempt[] = []
    const later: DeliveryJob[] = []
    // `failed`: its attempt here failed, with what that attempt's receiver said.
    const queueLater = (event: EventBody, failed?: { retryAfterSeconds?: number }): void => {
      if (failed !== undefined && settings.retryLimit === 0) return
      later.push({
        webhookId: job.webhookId,
        eventId: event.id,
        subjectId: event.subjectId,
        messageId: messageIdOf(job.webhookId, event.id),
        body: event.body,
        ...(failed !== undefined && { batchAttempted: true }),
        ...(failed?.retryAfterSeconds !== undefined && { retryAfterSeconds: failed.retryAfterSeconds })
      })
    }

    const stopAt = Date.now() + settings.timeoutMs
    // A subscription whose last attempts failed sends nothing from its batches: the retry queue probes
    // it at its own pace, and a dead receiver holds no batch worker for a timeout on every batch.
    let unreachable = subscription.failingSeconds !== null || lastTry
    const chains = bySubject(events).filter(chain => {
      if (!held.has(chain[0]!.subjectId)) return true
      for (const event of chain) queueLater(event)
      return false
    })
    const sendChain = async (chain: EventBody[]): Promise<void> => {
      for (const [i, event] of chain.entries()) {
        if (unreachable || Date.now() >= stopAt) {
          for (const rest of chain.slice(i)) queueLater(rest)
          return
        }
        const messageId = messageIdOf(job.webhookId, event.id)
        const outcome = await sendSigned(target, messageId, event.body, settings)
        attempts.push({ eventId: event.id, messageId, number: 1, outcome })
        if (!outcome.ok) {
          if (outcome.error !== undefined && UNREACHABLE.has(outcome.error)) unreachable = true
          queueLater(event, outcome)
          for (const rest of chain.slice(i + 1)) queueLater(rest)
          return
        }
      }
    }
    // `concurrency` senders, each taking the next subject's chain.
    let next = 0
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, chains.length) }, async () => {
      while (next < chains.length) await sendChain(chains[next++]!)
    }))

    await db.transaction().execute(async trx => {
      const { enabled, failingSeconds } = attempts.length === 0 ? { enabled: true, failingSeconds: subscription.failingSeconds } : await recordAttempts(trx, job.webhookId, attempts, settings.disableAfterSeconds)
      if (enabled) await queue.addDeliveries(trx, later, { failingSeconds })
    })
  }
}
