import { sql, type Kysely, type Migration } from 'kysely'

const ts = sql`timestamptz(3)`

/**
 * Webhook subscriptions, their delivery attempts, and the dispatch position in the event feed.
 * A subscription remembers the dispatch position it was made at: it receives only what comes after.
 */
export const webhooks: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('webhooks')
      .addColumn('id', 'uuid', col => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
      .addColumn('url', 'text', col => col.notNull())
      // Empty: every event type.
      .addColumn('tipos', sql`text[]`, col => col.notNull().defaultTo(sql`'{}'`))
      .addColumn('ativo', 'boolean', col => col.notNull().defaultTo(true))
      // Kept as given: every delivery is signed with it (a hash could not sign).
      .addColumn('segredo', 'text', col => col.notNull())
      .addColumn('desde_evento', 'bigint', col => col.notNull())
      // Since when every attempt failed; null after a success.
      .addColumn('falhando_desde', ts)
      // Set when the failures disabled it.
      .addColumn('desativado_em', ts)
      .addColumn('criado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('atualizado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      .execute()

    await db.schema.createTable('webhook_tentativas')
      .addColumn('id', 'bigint', col => col.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('webhook_id', 'uuid', col => col.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('evento_id', 'bigint', col => col.notNull())
      .addColumn('mensagem_id', 'text', col => col.notNull())
      .addColumn('numero', 'integer', col => col.notNull())
      .addColumn('em', ts, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('duracao_ms', 'integer', col => col.notNull())
      .addColumn('codigo', 'integer')
      .addColumn('resultado', 'text', col => col.notNull().check(sql`resultado in ('sucesso', 'falha')`))
      .addColumn('erro', 'text')
      .execute()
    await db.schema.createIndex('webhook_tentativas_webhook').on('webhook_tentativas').columns(['webhook_id', 'id']).execute()

    // At most one row, made on first use: the newest event the dispatch has turned into deliveries.
    await db.schema.createTable('webhook_despacho')
      .addColumn('unica', 'boolean', col => col.primaryKey().defaultTo(true).check(sql`unica`))
      .addColumn('ate_evento', 'bigint', col => col.notNull())
      .execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.dropTable('webhook_despacho').execute()
    await db.schema.dropTable('webhook_tentativas').execute()
    await db.schema.dropTable('webhooks').execute()
  }
}
