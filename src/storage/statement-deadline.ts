import { sql, type Kysely } from 'kysely'

/**
 * Lifts the statement deadline (statement_timeout, lock_timeout) for the rest of the transaction
 * `db` runs in: for the service's own work that may take long (migrations, the hourly purge), never
 * for a request's.
 */
export async function withoutStatementDeadline (db: Kysely<any>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(db)
  await sql`set local lock_timeout = 0`.execute(db)
}
