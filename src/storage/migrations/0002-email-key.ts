import { sql, type Kysely, type Migration } from 'kysely'
import { emailKey } from '../../domain/candidato.ts'

const BATCH = 1000

/**
 * Addresses are unique by their key (see emailKey), kept in a column of its own: the key is computed in
 * the application, so it is the same on every database whatever its collation and Unicode version.
 */
export const emailKeyColumn: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('candidatos').addColumn('email_chave', 'text').execute()
    let after = ''
    for (;;) {
      const rows: Array<{ id: string, email: string }> = await db.selectFrom('candidatos').select(['id', 'email'])
        .where(sql<boolean>`id::text > ${after}`).orderBy(sql`id::text`).limit(BATCH).execute()
      if (rows.length === 0) break
      await sql`update candidatos c set email_chave = k.chave from unnest(${rows.map(row => row.id)}::uuid[], ${rows.map(row => emailKey(row.email))}::text[]) as k(id, chave) where c.id = k.id`.execute(db)
      after = rows[rows.length - 1]!.id
    }
    const clashes: Array<{ email_chave: string, n: number }> = await db.selectFrom('candidatos').select(['email_chave', sql<number>`count(*)::int`.as('n')])
      .groupBy('email_chave').having(sql`count(*)`, '>', 1).limit(5).execute()
    if (clashes.length > 0) {
      throw new Error(`candidatos share an e-mail address once compared in Unicode normal form: ${clashes.map(clash => `${clash.email_chave} (${clash.n})`).join(', ')}; change all but one of each and migrate again`)
    }
    await db.schema.alterTable('candidatos').alterColumn('email_chave', col => col.setNotNull()).execute()
    await db.schema.dropIndex('candidatos_email_unique').execute()
    await db.schema.createIndex('candidatos_email_chave_unique').on('candidatos').unique().column('email_chave').execute()
  },

  async down (db: Kysely<any>) {
    await db.schema.dropIndex('candidatos_email_chave_unique').execute()
    await db.schema.alterTable('candidatos').dropColumn('email_chave').execute()
    await db.schema.createIndex('candidatos_email_unique').on('candidatos').unique().expression(sql`lower(email)`).execute()
  }
}
