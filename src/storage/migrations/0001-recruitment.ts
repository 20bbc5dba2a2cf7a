import { sql, type Kysely, type Migration } from 'kysely'

// Timestamps keep milliseconds (timestamptz(3)): what JavaScript dates hold, so a value read back
// and sent again in a paging cursor compares equal to the stored one.
const ts = sql`timestamptz(3)`

/** vagas, candidatos, their action history, and the Idempotency-Key record of creations. */
export const recruitment: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('vagas')
      .addColumn('id', 'uuid', col => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
      .addColumn('titulo', 'text', col => col.notNull())
      .addColumn('descricao', 'text')
      .addColumn('status', 'text', col => col.notNull().check(sql`status in ('aberta', 'fechada')`))
      .addColumn('criado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('atualizado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      // Grows by one on every change: the basis of the ETag.
      .addColumn('versao', 'integer', col => col.notNull().defaultTo(1))
      .execute()

    await db.schema.createTable('candidatos')
      .addColumn('id', 'uuid', col => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
      .addColumn('nome', 'text', col => col.notNull())
      .addColumn('email', 'text', col => col.notNull())
      .addColumn('status', 'text', col => col.notNull().check(sql`status in ('cadastrado', 'inscrito', 'aprovado', 'reprovado')`))
      // A vaga with candidatos in it cannot be deleted.
      .addColumn('vaga_id', 'uuid', col => col.references('vagas.id').onDelete('restrict'))
      .addColumn('transferido_de', 'uuid', col => col.references('vagas.id').onDelete('set null'))
      .addColumn('criado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('atualizado_em', ts, col => col.notNull().defaultTo(sql`now()`))
      .addColumn('versao', 'integer', col => col.notNull().defaultTo(1))
      .execute()

    await db.schema.createTable('candidato_acoes')
      .addColumn('id', 'bigint', col => col.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('candidato_id', 'uuid', col => col.notNull().references('candidatos.id').onDelete('cascade'))
      .addColumn('acao', 'text', col => col.notNull())
      .addColumn('metodo', 'text', col => col.notNull().check(sql`metodo in ('POST', 'DELETE')`))
      .addColumn('status_anterior', 'text', col => col.notNull())
      .addColumn('status_novo', 'text', col => col.notNull())
      // Plain ids, no foreign key: the history outlives the vagas it names.
      .addColumn('vaga_anterior_id', 'uuid')
      .addColumn('vaga_id', 'uuid')
      .addColumn('ator', 'text', col => col.notNull())
      .addColumn('em', ts, col => col.notNull().defaultTo(sql`now()`))
      .execute()

    await db.schema.createTable('idempotency_keys')
      .addColumn('scope', 'text', col => col.notNull())
      .addColumn('key', 'text', col => col.notNull())
      .addColumn('fingerprint', 'text', col => col.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('headers', 'jsonb')
      .addColumn('body', 'text')
      .addColumn('created_at', ts, col => col.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('idempotency_keys_pkey', ['scope', 'key'])
      .execute()

    // One index per filter and per sort; `id` ends every sort so keyset paging has a total order.
    const indexes: Array<[string, string, string[]]> = [
      ['vagas_criado_em', 'vagas', ['criado_em', 'id']],
      ['vagas_atualizado_em', 'vagas', ['atualizado_em', 'id']],
      ['vagas_titulo', 'vagas', ['titulo', 'id']],
      ['vagas_status_criado_em', 'vagas', ['status', 'criado_em', 'id']],
      ['candidatos_criado_em', 'candidatos', ['criado_em', 'id']],
      ['candidatos_atualizado_em', 'candidatos', ['atualizado_em', 'id']],
      ['candidatos_nome', 'candidatos', ['nome', 'id']],
      ['candidatos_email', 'candidatos', ['email', 'id']],
      ['candidatos_status_criado_em', 'candidatos', ['status', 'criado_em', 'id']],
      ['candidatos_vaga_status_criado_em', 'candidatos', ['vaga_id', 'status', 'criado_em', 'id']],
      ['candidatos_transferido_de', 'candidatos', ['transferido_de']],
      ['candidato_acoes_candidato', 'candidato_acoes', ['candidato_id', 'id']],
      ['idempotency_keys_created_at', 'idempotency_keys', ['created_at']]
    ]
    for (const [name, table, columns] of indexes) {
      await db.schema.createIndex(name).on(table).columns(columns).execute()
    }
    // Case-insensitive: Ana@x.com and ana@X.COM are one address.
    await db.schema.createIndex('candidatos_email_unique').on('candidatos').unique().expression(sql`lower(email)`).execute()
    // `q` matches the start of a name, title or address, case-insensitively: text_pattern_ops serves
    // `lower(col) like 'prefix%'` whatever the database collation.
    await db.schema.createIndex('vagas_titulo_prefix').on('vagas').expression(sql`lower(titulo) text_pattern_ops`).execute()
    await db.schema.createIndex('candidatos_nome_prefix').on('candidatos').expression(sql`lower(nome) text_pattern_ops`).execute()
    await db.schema.createIndex('candidatos_email_prefix').on('candidatos').expression(sql`lower(email) text_pattern_ops`).execute()
  },

  async down (db: Kysely<any>) {
    for (const table of ['idempotency_keys', 'candidato_acoes', 'candidatos', 'vagas']) {
      await db.schema.dropTable(table).execute()
    }
  }
}
