// Collections: sorting, filtering and both ways of paging, shared by the repositories.
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Param } from './compiled-shapes.ts'
import { isStorableInstant } from '../domain/iso-timestamp.ts'

export type SortDirection = 'asc' | 'desc'

export interface SortKey<F extends string = string> {
  field: F
  direction: SortDirection
}

/** Where the previous page ended: the sort values of its last item (text, or a timestamp as its IsoTimestamp), then its id. */
export interface Position {
  values: unknown[]
  id: string
}

export type Page =
  | { kind: 'offset', offset: number }
  | { kind: 'cursor', after?: Position }

export interface ListRequest<F extends string, Filter> {
  filter: Filter
  /** Sort keys in order; the id breaks ties so every order is total. */
  sort: Array<SortKey<F>>
  limit: number
  page: Page
}

export interface ListResult<T> {
  items: T[]
  /** Offset paging only: how many items match the filter. */
  total?: number
  /** Where the next page starts, when there is one. */
  next?: Position
}

/** A cursor whose values do not fit the sort it is used with. */
export class InvalidPositionError extends Error {
  override name = 'InvalidPositionError'
}

export type ColumnKind = 'text' | 'timestamp'

export interface SortColumn {
  column: string
  kind: ColumnKind
}

function decode (value: unknown, kind: ColumnKind): string | Date {
  if (typeof value !== 'string' || value.includes('\u0000')) throw new InvalidPositionError('cursor value is not a string PostgreSQL can hold')
  if (kind === 'text') return value
  const date = new Date(value)
  if (Number.isNaN(date.getTime()) || date.toISOString() !== value) throw new InvalidPositionError('cursor value is not a timestamp')
  // A JavaScript date reaches years PostgreSQL cannot hold: only those every timestamp this service writes is in travel.
  if (!isStorableInstant(date)) throw new InvalidPositionError('cursor value is not a timestamp the database can hold')
  return date
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A cursor's position as the statement binds it: its sort values as the columns hold them, then its id. */
function decodePosition (position: Position, columns: SortColumn[]): { values: Array<string | Date>, id: string } {
  if (position.values.length !== columns.length || typeof position.id !== 'string' || !UUID.test(position.id)) {
    throw new InvalidPositionError('cursor does not fit the sort')
  }
  return { values: columns.map((column, i) => decode(position.values[i], column.kind)), id: position.id }
}

/**
 * The keyset condition "after this position" for a sort with mixed directions:
 * (a > x) or (a = x and b < y) or (a = x and b = y and id > z), each comparison bound as a parameter.
 */
export function afterPosition (eb: ExpressionBuilder<any, any>, columns: SortColumn[], directions: SortDirection[], idColumn: string, values: unknown[], id: unknown): Expression<SqlBool> {
  const branches: Array<Expression<SqlBool>> = []
  for (let i = 0; i <= columns.length; i++) {
    const equal = columns.slice(0, i).map((column, j) => eb(eb.ref(column.column), '=', values[j]))
    const last = i === columns.length
      ? eb(eb.ref(idColumn), '>', id)
      : eb(eb.ref(columns[i]!.column), directions[i] === 'asc' ? '>' : '<', values[i])
    branches.push(eb.and([...equal, last]))
  }
  return eb.or(branches)
}

/** What, besides the filters, decides a page statement's text: the sort and the kind of page. */
export function pageShape (request: ListRequest<string, unknown>): string {
  const page = request.page
  const kind = page.kind === 'offset' ? 'offset' : page.after === undefined ? 'first' : 'after'
  return `${request.sort.map(key => `${key.direction} ${key.field}`).join(',')};${kind}`
}

/**
 * The values a page statement binds besides the filters: how many rows it fetches, and where it
 * starts. Throws InvalidPositionError for a cursor that does not fit the sort.
 */
export function pageValues<F extends string> (request: ListRequest<F, unknown>, sortColumns: Record<F, SortColumn>): Record<string, unknown> {
  const values: Record<string, unknown> = { fetch: request.limit + 1 }
  const page = request.page
  if (page.kind === 'offset') values.offset = page.offset
  else if (page.after !== undefined) {
    const position = decodePosition(page.after, request.sort.map(key => sortColumns[key.field]))
    position.values.forEach((value, i) => { values[`after${i}`] = value })
    values.afterId = position.id
  }
  return values
}

/**
 * A filtered list query narrowed to the request's page: in the request's order with the id last (so
 * the order is total), after the cursor's position or from the offset, and one row beyond the limit
 * (see pageOf). Its values are params, bound from pageValues: the shape compiles once (compiled-shapes.ts).
 */
export function pageQuery<DB, TB extends keyof DB, O, F extends string> (
  query: SelectQueryBuilder<DB, TB, O>, request: ListRequest<F, unknown>, sortColumns: Record<F, SortColumn>, idColumn: string, param: Param
): SelectQueryBuilder<DB, TB, O> {
  const columns = request.sort.map(key => sortColumns[key.field])
  const directions = request.sort.map(key => key.direction)
  const page = request.page
  if (page.kind === 'cursor' && page.after !== undefined) {
    const values = columns.map((_, i) => param(`after${i}`))
    query = query.where(eb => afterPosition(eb, columns, directions, idColumn, values, param('afterId')))
  }
  for (const [i, column] of columns.entries()) query = query.orderBy(sql.ref(column.column), directions[i])
  query = query.orderBy(sql.ref(idColumn), 'asc').limit(param<number>('fetch'))
  if (page.kind === 'offset') query = query.offset(param<number>('offset'))
  return query
}

/** The column a paged-by-offset query adds to each row: how many rows match the filter, limit and offset aside. */
export const TOTAL = sql<number>`count(*) over ()`.as('total')

/**
 * How many items match, read from the page's own rows (TOTAL), so a page costs one round trip. A page
 * past the end has no row to carry it: only then the filter is counted by itself.
 */
export async function totalOf (rows: Array<{ total: number }>, offset: number, count: () => Promise<number>): Promise<number> {
  const first = rows[0]
  if (first !== undefined) return Number(first.total)
  return offset === 0 ? 0 : await count()
}

/** `value%` for LIKE with the client's %, _ and \ taken literally. */
export function prefixPattern (value: string): string {
  return `${value.toLowerCase().replace(/[\\%_]/g, char => `\\${char}`)}%`
}

/** The page out of the rows a list query fetched with `limit + 1`: the extra row only says there is more. */
export function pageOf<F extends string, T extends { id: string } & Record<F, unknown>> (request: ListRequest<F, unknown>, fetched: T[], total: number | undefined): ListResult<T> {
  const items = fetched.slice(0, request.limit)
  const last = items.at(-1)
  const more = fetched.length > request.limit && last !== undefined
  return {
    items,
    ...(total !== undefined && { total }),
    ...(more && { next: { values: request.sort.map(key => last[key.field]), id: last.id } })
  }
}
