// The one place the feed's order is decided: every write path of the repositories adds its events
// in its transaction (with appendEvents, or in the statement of its change: candidatos-repository.ts),
// and every read of the feed starts with numberCommittedEvents.
import { sql, type Kysely, type Transaction } from 'kysely'
import type { SubjectKind } from '../domain/events.ts'
import { inTransaction } from './in-transaction.ts'
import type { Schema } from './schema.ts'

/** The advisory lock of whoever numbers events; no other code takes this key. */
const NUMBERING_LOCK_KEY = sql.lit(0x65_76_65_6e_74)
// Events numbered per read: a backlog is numbered over several reads.
const NUMBERING_BATCH = 1000

export interface NewEvent {
  type: string
  /** Who acted (Principal.actor): the API's `ator`. */
  actor: string
  subject: { kind: SubjectKind, id: string }
  /** The subject's record after the change (plain JSON data), or null when it is gone. */
  data: object | null
}

/**
 * Adds the transaction's events, in order, as its last statement. They get their feed id only after
 * commit (numberCommittedEvents), so writers never wait for each other here, and their commits stay
 * as concurrent as without a feed.
 */
export async function appendEvents (trx: Transaction<Schema>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return
  await sql`insert into eventos (tipo, ator, sujeito_tipo, sujeito_id, dados)
    select tipo, ator, sujeito_tipo, sujeito_id, dados::jsonb
    from unnest(${events.map(event => event.type)}::text[], ${events.map(event => event.actor)}::text[], ${events.map(event => event.subject.kind)}::text[],
      ${events.map(event => event.subject.id)}::uuid[], ${events.map(event => event.data === null ? null : JSON.stringify(event.data))}::text[])
      with ordinality as e(tipo, ator, sujeito_tipo, sujeito_id, dados, n)
    order by n`.execute(trx)
}

/**
 * Gives the committed events that have no feed id yet the next ids, in the order they were written.
 * One numberer at a time (a transaction-level lock; a reader that finds it taken reads without waiting),
 * and each reads what the previous one committed, so an event numbered later always gets a larger id
 * than every event a reader could already see: `id > last seen` never skips one. Two changes to one
 * subject commit one after the other (the second waits for the first's row lock), and the second is
 * written after that, so a subject's events are numbered in order.
 */
export async function numberCommittedEvents (db: Kysely<Schema>): Promise<void> {
  await inTransaction(db, async trx => {
    const { rows } = await sql<{ numbering: boolean }>`select pg_try_advisory_xact_lock(${NUMBERING_LOCK_KEY}) as numbering`.execute(trx)
    if (rows[0]?.numbering !== true) return
    // A statement of its own, after the lock: its snapshot sees the previous numberer's commit.
    await sql`update eventos e set id = s.base + s.n
      from (select ordem, row_number() over (order by ordem) as n, (select coalesce(max(id), 0) from eventos) as base
        from eventos where id is null order by ordem limit ${NUMBERING_BATCH}) s
      where e.ordem = s.ordem`.execute(trx)
  })
}
