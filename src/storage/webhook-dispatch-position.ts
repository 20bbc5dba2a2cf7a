// The dispatch position: the newest event already turned into deliveries. One row, made on first use
// at the feed's newest event (history before webhooks existed is not delivered).
import { sql, type Transaction } from 'kysely'
import type { Schema } from './schema.ts'

export interface DispatchPosition {
  /** The newest event already dispatched. */
  after: number
  /** Whether the transaction that moved the position last began after this one (see dispatchEvents). */
  movedByLaterTransaction: boolean
}

/**
 * Reads the position under a lock held until the transaction ends. Dispatches take turns with it, and
 * a new subscription waits for a dispatch under way (the next one sees it) and for another creation.
 */
export async function lockDispatchPosition (trx: Transaction<Schema>): Promise<DispatchPosition> {
  await sql`insert into webhook_despacho (ate_evento) select coalesce(max(id), 0) from eventos on conflict (unica) do nothing`.execute(trx)
  const { ate_evento: after, later } = await trx.selectFrom('webhook_despacho').select(['ate_evento', sql<boolean>`movida_em > now()`.as('later')])
    .forUpdate().executeTakeFirstOrThrow()
  return { after, movedByLaterTransaction: later }
}

/** Moves the position, stamped with this transaction's start. */
export async function moveDispatchPosition (trx: Transaction<Schema>, to: number): Promise<void> {
  await trx.updateTable('webhook_despacho').set({ ate_evento: to, movida_em: sql<Date>`now()` }).execute()
}
