import { sql, type Kysely } from 'kysely'
import type { Schema } from '../../src/storage/schema.ts'

const TABLES = ['vagas', 'candidatos', 'candidato_acoes', 'idempotency_keys'] as const

/** A digest of every stored row: equal before and after a request means the request changed nothing. */
export async function storedState (db: Kysely<Schema>): Promise<string> {
  const digests = await Promise.all(TABLES.map(async table => {
    const { rows } = await sql<{ digest: string | null }>`select md5(string_agg(t::text, ',' order by t::text)) as digest from ${sql.table(table)} t`.execute(db)
    return `${table}:${rows[0]?.digest ?? 'empty'}`
  }))
  return digests.join(' ')
}
