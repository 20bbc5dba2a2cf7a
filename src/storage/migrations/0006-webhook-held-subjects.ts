import type { Kysely, Migration } from 'kysely'

/**
 * Subjects whose deliveries to a subscription wait in the retry queue: new events of such a subject
 * queue behind them instead of going out with their batch, so a subject's events arrive in order.
 * A row stays until the delivery of its newest queued event (`ate_evento`) ends.
 */
export const webhookHeldSubjects: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('webhook_retidos')
      .addColumn('webhook_id', 'uuid', col => col.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('sujeito_id', 'uuid', col => col.notNull())
      .addColumn('ate_evento', 'bigint', col => col.notNull())
      .addPrimaryKeyConstraint('webhook_retidos_pkey', ['webhook_id', 'sujeito_id'])
      .execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.dropTable('webhook_retidos').execute()
  }
}
