// Query parameters of collections: the sort expression and the opaque v2 paging cursor.
import { createHash } from 'node:crypto'
import type { Position, SortKey } from '../../storage/listing.ts'
import type { Problem } from '../problems/problem.ts'
import { problem, type ProblemCode } from '../problems/error-catalogue.ts'

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100

/** `-criadoEm,nome`: comma-separated fields, `-` for descending. */
export const SORT_PATTERN = '^-?[A-Za-z]+(,-?[A-Za-z]+){0,4}$'

function invalidQuery (field: string, message: string, code: ProblemCode = 'ValidationFailed'): Problem {
  return problem(code, { detail: 'The request querystring is invalid.', errors: [{ in: 'querystring', field: `/${field}`, message }] })
}

/** The sort keys of a `sort` parameter; unknown or repeated fields answer 400. */
export function parseSort<F extends string> (value: string | undefined, allowed: readonly F[], fallback: string): Array<SortKey<F>> {
  const keys: Array<SortKey<F>> = []
  for (const part of (value ?? fallback).split(',')) {
    const descending = part.startsWith('-')
    const field = (descending ? part.slice(1) : part) as F
    if (!allowed.includes(field)) throw invalidQuery('sort', `unknown sort field "${field}"; the fields are ${allowed.join(', ')}`)
    if (keys.some(key => key.field === field)) throw invalidQuery('sort', `"${field}" is named twice`)
    keys.push({ field, direction: descending ? 'desc' : 'asc' })
  }
  return keys
}

export function sortText (keys: Array<SortKey<string>>): string {
  return keys.map(key => `${key.direction === 'desc' ? '-' : ''}${key.field}`).join(',')
}

/** What a cursor is bound to: the same collection, sort and filters, or it means nothing. */
export interface CursorScope {
  /** The collection's path without the version: `/vagas`, `/vagas/{id}/candidatos`. */
  collection: string
  sort: string
  filter: Record<string, unknown>
}

function binding ({ collection, sort, filter }: CursorScope): string {
  const entries = Object.entries(filter).filter(([, value]) => value !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))
  return createHash('sha256').update(JSON.stringify([collection, sort, entries])).digest('base64url').slice(0, 16)
}

export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,2000}$'

export function encodeCursor (position: Position, scope: CursorScope): string {
  return Buffer.from(JSON.stringify({ b: binding(scope), v: position.values, id: position.id })).toString('base64url')
}

/** The position in a `cursor` parameter; a cursor that is damaged or made for another collection or query answers 400. */
export function decodeCursor (cursor: string, scope: CursorScope): Position {
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw invalidQuery('cursor', 'is not a cursor this service issued', 'InvalidCursor')
  }
  const shape = decoded as { b?: unknown, v?: unknown, id?: unknown } | null
  if (typeof shape !== 'object' || shape === null || !Array.isArray(shape.v) || typeof shape.id !== 'string' || typeof shape.b !== 'string') {
    throw invalidQuery('cursor', 'is not a cursor this service issued', 'InvalidCursor')
  }
  if (shape.b !== binding(scope)) {
    throw invalidQuery('cursor', 'belongs to another collection, sort or filter; start again without a cursor', 'InvalidCursor')
  }
  return { values: shape.v, id: shape.id }
}

export function cursorProblem (): Problem {
  return invalidQuery('cursor', 'is not a cursor this service issued', 'InvalidCursor')
}

/** `?a=1&b=2` from the defined values, in the given order; empty when there are none. */
export function queryString (params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value))
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}
