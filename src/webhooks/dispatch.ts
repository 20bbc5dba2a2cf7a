// The dispatch step: events after the stored position become one delivery per matching
// subscription, queued in the transaction that moves the position, so an event is queued once
// whichever instance dispatches it, and none is lost when an instance stops half-way.
import { sql, type Kysely } from 'kysely'
import type { Schema } from '../storage/schema.js'
import { lockDispatchPosition, moveDispatchPosition } from '../storage/webhook-dispatch-position.js'
import type { DeliveryQueue, NewDelivery } from './delivery-queue.js'
import { eventsAfter, type EventRepresentation } from './event-source.js'

// Events read per transaction: a backlog is worked through in several, each short.
const PAGE = 200

interface Subscription { id: string, tipos: string[], desde_evento: number }

/** Dispatches what is pending; returns how many deliveries were queued. */
export async function dispatchEvents (db: Kysely<Schema>, queue: Pick<DeliveryQueue, 'add'>, represent: EventRepresentation): Promise<number> {
  let queued = 0
  for (;;) {
    const { deliveries, full } = await db.transaction().execute(async trx => {
      // Instances take turns: the second reads the position the first moved.
      const { after, movedByLaterTransaction } = await lockDispatchPosition(trx)
      // The queue takes a subject's deliveries in the order their transactions began. This one began
      // before the dispatch that moved the position last, so its deliveries would overtake that one's:
      // it queues nothing, and the next interval dispatches in a transaction begun after.
      if (movedByLaterTransaction) return { deliveries: [], full: false }
      const page = await eventsAfter(trx, after, PAGE)
      const subscriptions: Subscription[] = page.items.length === 0
        ? []
        : await trx.selectFrom('webhooks').select(['id', 'tipos', 'desde_evento']).where('ativo', '=', true).execute()
      const deliveries: NewDelivery[] = []
      for (const event of page.items) {
        for (const subscription of subscriptions) {
          if (event.id <= subscription.desde_evento) continue
          if (subscription.tipos.length > 0 && !subscription.tipos.includes(event.type)) continue
          deliveries.push({
            webhookId: subscription.id,
            eventId: event.id,
            messageId: `msg_${subscription.id.replaceAll('-', '')}_${event.id}`,
            body: JSON.stringify({ type: event.type, timestamp: event.at, data: represent(event) }),
            orderKey: `${subscription.id}:${event.subject.id}`
          })
        }
      }
      await queue.add(trx, deliveries)
      if (page.next > after) await moveDispatchPosition(trx, page.next)
      return { deliveries, full: page.items.length === PAGE }
    })
    queued += deliveries.length
    if (!full) return queued
  }
}

/** Whether any subscription is enabled: the one question an idle service asks each interval. */
export async function anySubscription (db: Kysely<Schema>): Promise<boolean> {
  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from webhooks where ativo) as any`.execute(db)
  return rows[0]?.any === true
}
