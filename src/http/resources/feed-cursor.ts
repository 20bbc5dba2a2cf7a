// The events feed's cursor: a position in the feed, bound to the feed's filters.
import { decodeCursor, encodeCursor, cursorProblem, type CursorScope } from './collection-query.ts'

/** A feed cursor: the position after which the reader goes on, bound to the filters like every cursor. */
export function feedScope (filter: Record<string, string | undefined>): CursorScope {
  return { collection: '/eventos', sort: 'id', filter }
}

export function encodeFeedCursor (position: number, scope: CursorScope): string {
  return encodeCursor({ values: [], id: String(position) }, scope)
}

export function decodeFeedCursor (cursor: string, scope: CursorScope): number {
  const { values, id } = decodeCursor(cursor, scope)
  if (values.length !== 0 || !/^\d{1,15}$/.test(id)) throw cursorProblem()
  return Number(id)
}
