import { sql, type Kysely, type Transaction } from 'kysely'
import { withoutStatementDeadline } from './statement-deadline.ts'
import { IDEMPOTENCY_KEY_COLUMNS, type Schema } from './schema.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_HOURS = 24

export interface StoredResponse {
  statusCode: number
  headers: Record<string, string>
  body: string
}

export interface IdempotentRequest {
  /** Who asked and where (caller and route): keys of different callers never meet. */
  scope: string
  key: string
  /** A digest of what makes two requests the same request (version and body). */
  fingerprint: string
}

export type IdempotentOutcome =
  | { outcome: 'first', response: StoredResponse }
  | { outcome: 'replayed', response: StoredResponse }
  | { outcome: 'mismatch' }

export function createIdempotencyRepository (db: Kysely<Schema>) {
  return {
    /**
     * Runs `work` once per key: its writes and the remembered response commit together, so a retry
     * either finds the response or finds nothing done. A retry that arrives while the first request
     * is still running waits on the key's row and then replays its response.
     */
    async run (request: IdempotentRequest, work: (trx: Transaction<Schema>) => Promise<StoredResponse>): Promise<IdempotentOutcome> {
      return await db.transaction().execute(async trx => {
        await trx.deleteFrom('idempotency_keys')
          .where('scope', '=', request.scope)
          .where('key', '=', request.key)
          .where('created_at', '<', sql<IsoTimestamp>`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`)
          .execute()
        const claimed = await trx.insertInto('idempotency_keys')
          .values({ scope: request.scope, key: request.key, fingerprint: request.fingerprint })
          .onConflict(oc => oc.columns(['scope', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst()
        if (claimed === undefined) {
          const stored = await trx.selectFrom('idempotency_keys').select(IDEMPOTENCY_KEY_COLUMNS)
            .where('scope', '=', request.scope).where('key', '=', request.key)
            .executeTakeFirstOrThrow()
          if (stored.fingerprint !== request.fingerprint) return { outcome: 'mismatch' }
          return { outcome: 'replayed', response: { statusCode: stored.status_code!, headers: stored.headers ?? {}, body: stored.body ?? '' } }
        }
        const response = await work(trx)
        await trx.updateTable('idempotency_keys')
          .set({ status_code: response.statusCode, headers: JSON.stringify(response.headers) as unknown as Record<string, string>, body: response.body })
          .where('scope', '=', request.scope).where('key', '=', request.key)
          .execute()
        return { outcome: 'first', response }
      })
    },

    /** Forgets keys older than the retention time; returns how many. */
    async purgeExpired (): Promise<number> {
      // However many keys have expired, the purge runs to its end: no request waits on it.
      return await db.transaction().execute(async trx => {
        await withoutStatementDeadline(trx)
        const result = await trx.deleteFrom('idempotency_keys')
          .where('created_at', '<', sql<IsoTimestamp>`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`)
          .executeTakeFirst()
        return Number(result.numDeletedRows)
      })
    }
  }
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>
