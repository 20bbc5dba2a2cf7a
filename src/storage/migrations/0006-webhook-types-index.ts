import { sql, type Kysely, type Migration } from 'kysely'

/**
 * The enabled subscriptions by the event types they take, so a dispatch reads only those its events
 * match. A subscription to every type (no `tipos`) is indexed under `*`, which no type is: one
 * indexed condition finds both kinds. The expression is the dispatch's (src/webhooks/subscriptions-taking.ts),
 * written the same so the planner matches it.
 */
export const webhookTypesIndex: Migration = {
  async up (db: Kysely<any>) {
    await sql`create index webhooks_tipos_ativos on webhooks using gin ((case when cardinality(tipos) = 0 then array['*']::text[] else tipos end)) where ativo`.execute(db)
  },

  async down (db: Kysely<any>) {
    await sql`drop index webhooks_tipos_ativos`.execute(db)
  }
}
