// The one place events are written: every write path of the repositories ends its transaction here.
import { sql, type Transaction } from 'kysely'
import type { SubjectKind } from '../domain/events.js'
import type { Schema } from './schema.js'

/** The advisory lock every transaction that writes events takes; no other code takes this key. */
const FEED_LOCK_KEY = sql.lit(0x65_76_65_6e_74)

export interface NewEvent {
  type: string
  /** Who acted (Principal.actor): the API's `ator`. */
  actor: string
  subject: { kind: SubjectKind, id: string }
  /** The subject's record after the change (plain JSON data), or null when it is gone. */
  data: object | null
}

/**
 * Adds the transaction's events, in order, as its last statements. The lock is held until commit and
 * the ids are drawn under it, so ids follow commit order: no event with a smaller id can become visible
 * after a larger one, and a reader that asks for `id > last seen` never skips one. Taken this late, it
 * is held only for the insert and the commit, and never while waiting for a row lock (no cycle).
 */
export async function appendEvents (trx: Transaction<Schema>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return
  // The lock is a row source of the insert's select: no row, so no id, is drawn before it is held.
  await sql`insert into eventos (tipo, ator, sujeito_tipo, sujeito_id, dados)
    select tipo, ator, sujeito_tipo, sujeito_id, dados::jsonb
    from (select pg_advisory_xact_lock(${FEED_LOCK_KEY})) feed_lock, unnest(${events.map(event => event.type)}::text[], ${events.map(event => event.actor)}::text[], ${events.map(event => event.subject.kind)}::text[],
      ${events.map(event => event.subject.id)}::uuid[], ${events.map(event => event.data === null ? null : JSON.stringify(event.data))}::text[])
      with ordinality as e(tipo, ator, sujeito_tipo, sujeito_id, dados, n)
    order by n`.execute(trx)
}
