import type { Kysely, Transaction } from 'kysely'
import type { Schema } from './schema.ts'

/**
 * Runs `work` in a transaction: the one the repositories were built over (an idempotent create runs in
 * its key's transaction), or a new one.
 */
export async function inTransaction<T> (db: Kysely<Schema>, work: (trx: Transaction<Schema>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return await work(db as Transaction<Schema>)
  return await db.transaction().execute(work)
}
