// The enabled subscriptions that take any of a page of events: those to one of its types, and those
// to every type. Found through an index (migration 0006), so subscriptions to other types cost the
// dispatch nothing, however many there are.
import { sql, type Kysely } from 'kysely'
import type { Schema } from '../storage/schema.ts'

export interface Subscription { id: string, tipos: string[], escopos: string[], desde_evento: number }

// No event type is `*`: it stands for "every type" in the index.
const EVERY_TYPE = '*'

/** Those that take any of `types`, made before `lastEvent` (a later one takes none of these events). */
export async function subscriptionsTaking (db: Kysely<Schema>, types: readonly string[], lastEvent: number): Promise<Subscription[]> {
  const { rows } = await sql<Subscription>`select id, tipos, escopos, desde_evento from webhooks
    where ativo and (case when cardinality(tipos) = 0 then array['*']::text[] else tipos end) && ${[...new Set(types), EVERY_TYPE]}::text[]
      and desde_evento < ${lastEvent}`.execute(db)
  return rows.map(row => ({ ...row, desde_evento: Number(row.desde_evento) }))
}
