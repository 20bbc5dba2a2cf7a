// The dispatch step: events after the stored position become one batch per subscription of the
// events it takes, queued in the transaction that moves the position, so an event is queued once
// whichever instance dispatches it, and none is lost when an instance stops half-way.
import { sql, type Kysely } from 'kysely'
import type { Schema } from '../storage/schema.ts'
import { lockDispatchPosition, moveDispatchPosition } from '../storage/webhook-dispatch-position.ts'
import type { BatchJob, DeliveryQueue } from './delivery-queue.ts'
import type { EventBodies } from './event-bodies.ts'
import { eventsAfter } from './event-source.ts'
import { mayReceive } from './readable-types.ts'
import { subscriptionsTaking, type Subscription } from './subscriptions-taking.ts'

// Events read per transaction: a backlog is worked through in several, each short.
const PAGE = 200

/** Whether the subscription takes an event of this type: one it asked for, and its creator may read. */
function takesType (subscription: Subscription, type: string): boolean {
  return (subscription.tipos.length === 0 || subscription.tipos.includes(type)) && mayReceive(type, subscription.escopos)
}

/** Dispatches what is pending; returns how many batches were queued. */
export async function dispatchEvents (db: Kysely<Schema>, queue: Pick<DeliveryQueue, 'addBatches'>, bodies: EventBodies): Promise<number> {
  let queued = 0
  for (;;) {
    const { batches, full } = await db.transaction().execute(async trx => {
      // Instances take turns: the second reads the position the first moved.
      const { after, movedByLaterTransaction } = await lockDispatchPosition(trx)
      // The queue takes a subject's deliveries in the order their transactions began. This one began
      // before the dispatch that moved the position last, so its deliveries would overtake that one's:
      // it queues nothing, and the next interval dispatches in a transaction begun after.
      if (movedByLaterTransaction) return { batches: [], full: false }
      const page = await eventsAfter(trx, after, PAGE)
      // Only those its events match: the rest are never read.
      const subscriptions: Subscription[] = page.items.length === 0
        ? []
        : await subscriptionsTaking(trx, page.items.map(event => event.type), page.items.at(-1)!.id)
      const batches: BatchJob[] = subscriptions.map(subscription => ({ webhookId: subscription.id, eventIds: [] }))
      for (const event of page.items) {
        let taken = false
        for (const [i, subscription] of subscriptions.entries()) {
          if (event.id <= subscription.desde_evento) continue
          if (!takesType(subscription, event.type)) continue
          batches[i]!.eventIds.push(event.id)
          taken = true
        }
        // Made now, while the event is at hand, for the batches to send.
        if (taken) bodies.of(event)
      }
      const taken = batches.filter(batch => batch.eventIds.length > 0)
      await queue.addBatches(trx, taken)
      if (page.next > after) await moveDispatchPosition(trx, page.next)
      return { batches: taken, full: page.items.length === PAGE }
    })
    queued += batches.length
    if (!full) return queued
  }
}

/** Whether any subscription is enabled: the one question an idle service asks each interval. */
export async function anySubscription (db: Kysely<Schema>): Promise<boolean> {
  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from webhooks where ativo) as any`.execute(db)
  return rows[0]?.any === true
}
