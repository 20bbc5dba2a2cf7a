import { sql, type Kysely, type Migration } from 'kysely'

/**
 * When the dispatch position last moved: the start of the transaction that moved it, which is also
 * when the deliveries it queued were created (see dispatchEvents). At PostgreSQL's full precision,
 * to compare with another transaction's start.
 */
export const webhookDispatchTime: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('webhook_despacho').addColumn('movida_em', 'timestamptz', col => col.notNull().defaultTo(sql`'-infinity'`)).execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.alterTable('webhook_despacho').dropColumn('movida_em').execute()
  }
}
