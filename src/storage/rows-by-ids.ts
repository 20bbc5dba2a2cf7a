import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { Schema } from './schema.js'

/**
 * A query for the rows whose `idColumn` is in a list, built and compiled once: its one parameter is
 * the array of ids, so every batch of reads sends the same SQL text and skips the query builder.
 */
export function rowsByIds<QueryDB, TB extends keyof QueryDB, Row> (
  db: Kysely<Schema>,
  query: SelectQueryBuilder<QueryDB, TB, Row>,
  idColumn: string
): (ids: readonly string[]) => Promise<Row[]> {
  const compiled = query.where(sql<boolean>`${sql.ref(idColumn)} = any(${sql.val<readonly string[]>([])})`).compile()
  return async ids => (await db.executeQuery<Row>({ ...compiled, parameters: [ids] })).rows
}
