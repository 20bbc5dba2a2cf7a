import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Who made each subscription (the creator's actor), and which of the scopes that decide what it may
 * receive (readable-types.ts) the creator held. Subscriptions made before were made by anyone with
 * webhooks:write: they belong to no one (only webhooks:admin sees them) and, their creators' scopes
 * being unknown, receive nothing until remade (docs/api.md, "Subscriptions").
 */
export const webhookOwner: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('webhooks').addColumn('criado_por', 'text').execute()
    await db.schema.alterTable('webhooks').addColumn('escopos', sql`text[]`, col => col.notNull().defaultTo(sql`'{}'`)).execute()
    // Only the existing rows take the empty default: every new subscription says what its creator held.
    await db.schema.alterTable('webhooks').alterColumn('escopos', col => col.dropDefault()).execute()
    await db.schema.createIndex('webhooks_criado_por').on('webhooks').columns(['criado_por', 'criado_em', 'id']).execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.dropIndex('webhooks_criado_por').execute()
    await db.schema.alterTable('webhooks').dropColumn('escopos').execute()
    await db.schema.alterTable('webhooks').dropColumn('criado_por').execute()
  }
}
