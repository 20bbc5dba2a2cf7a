import { sql, type Kysely, type Migration } from 'kysely'

/**
 * The event feed: one row per state change, written in the change's transaction with its `ordem` (the
 * order writes happened). Its feed `id` is given after commit, in `ordem` order, by whoever reads the
 * feed next (see event-log.ts): so an event that commits late still comes after every event already
 * read. `eventos_retencao` remembers the newest id the retention purge removed: a reader whose position
 * is older may have missed events.
 */
export const events: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('eventos')
      .addColumn('ordem', 'bigint', col => col.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('id', 'bigint', col => col.unique())
      .addColumn('tipo', 'text', col => col.notNull())
      .addColumn('em', sql`timestamptz(3)`, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('ator', 'text', col => col.notNull())
      .addColumn('sujeito_tipo', 'text', col => col.notNull().check(sql`sujeito_tipo in ('vaga', 'candidato')`))
      // A plain id, no foreign key: the feed outlives what it names.
      .addColumn('sujeito_id', 'uuid', col => col.notNull())
      // The subject as it was after the change (null for a removal).
      .addColumn('dados', 'jsonb')
      .execute()
    await db.schema.createIndex('eventos_tipo').on('eventos').columns(['tipo', 'id']).execute()
    await db.schema.createIndex('eventos_sujeito').on('eventos').columns(['sujeito_id', 'id']).execute()
    await db.schema.createIndex('eventos_em').on('eventos').column('em').execute()
    // What the feed has yet to number: nothing, most of the time.
    await db.schema.createIndex('eventos_sem_id').on('eventos').column('ordem').where(sql.ref('id'), 'is', null).execute()

    // One row at most, written by the first purge that removes anything; none means nothing was removed.
    await db.schema.createTable('eventos_retencao')
      .addColumn('unica', 'boolean', col => col.primaryKey().defaultTo(true).check(sql`unica`))
      .addColumn('removidos_ate', 'bigint', col => col.notNull())
      .execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.dropTable('eventos_retencao').execute()
    await db.schema.dropTable('eventos').execute()
  }
}
