// Each event's delivery body, made once for every subscription it goes to: the dispatch keeps the
// bodies of the events it just read, and a batch takes them from here, reading from the database
// only those another instance dispatched or this one no longer keeps.
import type { Kysely } from 'kysely'
import type { EventRecord } from '../storage/eventos-repository.ts'
import type { Schema } from '../storage/schema.ts'
import { eventsByIds, type EventRepresentation } from './event-source.ts'

export interface EventBody {
  id: number
  type: string
  subjectId: string
  /** The request body: the same bytes for every subscription and every attempt. */
  body: string
}

// Bodies kept: a few dispatches' worth, so the batches they queue find theirs here.
const KEPT_BODIES = 4000

export class EventBodies {
  private readonly kept = new Map<number, EventBody>()

  private readonly db: Kysely<Schema>
  private readonly represent: EventRepresentation

  constructor (db: Kysely<Schema>, represent: EventRepresentation) {
    this.db = db
    this.represent = represent
  }

  /** The event's body, kept for the batches about to ask for it. */
  of (event: EventRecord): EventBody {
    const made: EventBody = {
      id: event.id,
      type: event.type,
      subjectId: event.subject.id,
      body: JSON.stringify({ type: event.type, timestamp: event.at, data: this.represent(event) })
    }
    this.kept.set(event.id, made)
    // Oldest first out: a Map iterates in insertion order.
    if (this.kept.size > KEPT_BODIES) this.kept.delete(this.kept.keys().next().value!)
    return made
  }

  /** The bodies of these events, in the order given; events the retention purge removed are left out. */
  async get (ids: readonly number[]): Promise<EventBody[]> {
    const found = new Map<number, EventBody>()
    const missing: number[] = []
    for (const id of ids) {
      const kept = this.kept.get(id)
      if (kept === undefined) missing.push(id)
      else found.set(id, kept)
    }
    if (missing.length > 0) {
      for (const event of await eventsByIds(this.db, missing)) found.set(event.id, this.of(event))
    }
    return ids.map(id => found.get(id)).filter(body => body !== undefined)
  }
}
