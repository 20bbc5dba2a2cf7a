import { sql, type Kysely, type Migration } from 'kysely'

/**
 * The event feed: one row per state change, written in the change's transaction. Ids come from the
 * identity's sequence under a lock the writers share (see event-log.ts), so they follow commit order
 * (the sequence keeps its default cache of 1: with more, each session would draw from a range of its own).
 * `eventos_retencao` remembers the newest id the retention purge removed: a reader whose position is
 * older may have missed events.
 */
export const events: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('eventos')
      .addColumn('id', 'bigint', col => col.primaryKey().generatedAlwaysAsIdentity())
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
