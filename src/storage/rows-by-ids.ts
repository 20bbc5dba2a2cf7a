import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import { compiledStatement } from './compiled-shapes.js'
import type { Schema } from './schema.js'

/**
 * A query for the rows whose `idColumn` is in a list, compiled once: its one parameter is the array
 * of ids, so every batch of reads sends the same SQL text and skips the query builder.
 */
export function rowsByIds<QueryDB, TB extends keyof QueryDB, Row> (
  db: Kysely<Schema>,
  query: SelectQueryBuilder<QueryDB, TB, Row>,
  idColumn: string
): (ids: readonly string[]) => Promise<Row[]> {
  const statement = compiledStatement<Row>(param => query.where(sql<boolean>`${sql.ref(idColumn)} = any(${param<readonly string[]>('ids')})`))
  return async ids => (await db.executeQuery(statement({ ids }))).rows
}
