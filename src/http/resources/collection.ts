// Collections, paged the way the API version says: by offset with the total, or by an opaque cursor with a next link.
// Every page carries a weak ETag, and If-None-Match answers 304 before any item is represented.
import { createHash } from 'node:crypto'
import { Type, type TProperties, type TSchema } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { ifNoneMatchHits } from '../conventions/conditional.ts'
import { InvalidPositionError, type ListRequest, type ListResult } from '../../storage/listing.ts'
import { CURSOR_PATTERN, DEFAULT_LIMIT, MAX_LIMIT, SORT_PATTERN, cursorProblem, decodeCursor, encodeCursor, parseSort, queryString, sortText } from './collection-query.ts'
import { problemResponse } from '../problems/problem-response.ts'
import { Links, type Link } from '../../representations/fields.ts'
import type { ItemRepresentation, Paging } from '../../representations/paging.ts'

export const MAX_OFFSET = 1_000_000

// Optional, with defaults the validation fills in: a client may leave every paging parameter out.
export const Limit = Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Items per page, 1 to ${MAX_LIMIT}` })
export const Cursor = Type.String({ pattern: CURSOR_PATTERN, description: 'Opaque: copy it from the `next` link' })

function offsetPagingQuery (sortFields: readonly string[], defaultSort: string) {
  return {
    limit: Type.Optional(Limit),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Items to skip' })),
    sort: Type.Optional(Type.String({ pattern: SORT_PATTERN, description: `Comma-separated fields, \`-\` for descending: ${sortFields.join(', ')}. Default \`${defaultSort}\`` }))
  }
}

function cursorPagingQuery (sortFields: readonly string[], defaultSort: string) {
  return {
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
    sort: Type.Optional(Type.String({ pattern: SORT_PATTERN, description: `Comma-separated fields, \`-\` for descending: ${sortFields.join(', ')}. Default \`${defaultSort}\`` }))
  }
}

/** A collection's query string: its filters, then the paging parameters. Typed as either style, so a handler reads each. */
export function collectionQuerystring<F extends TProperties> (paging: Paging, filters: F, sortFields: readonly string[], defaultSort: string) {
  return paging === 'offset'
    ? Type.Object({ ...filters, ...offsetPagingQuery(sortFields, defaultSort) })
    : Type.Object({ ...filters, ...cursorPagingQuery(sortFields, defaultSort) })
}

export function pageSchemaV1<T extends TSchema> (item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer({ description: 'Items matching the filters' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
    links: Links
  }, { description: 'One page: `self`, and `next`/`prev` when there are more' })
}

export function pageSchemaV2<T extends TSchema> (item: T) {
  return Type.Object({
    items: Type.Array(item),
    limit: Type.Integer(),
    links: Links
  }, { description: 'One page: `self`, and `next` while there are more' })
}

/** The request headers of a collection: the page validators the client holds. */
export const CollectionHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'Page ETags the client holds: 304 when one is current' }))
})

const PageHeaders = {
  etag: { type: 'string', description: 'A weak validator of this page: it changes when an item on it, the total or the links change' }
}

function pageAnswer<T extends TSchema> (schema: T) {
  return { description: schema.description ?? 'One page', content: { 'application/json': { schema } }, headers: PageHeaders }
}

const NOT_MODIFIED = { description: 'The page the client holds is current', type: 'null', headers: PageHeaders } as const

/** A collection's answers: the page, 304 for a current copy, and with cursors the refusal of a cursor this service did not issue. */
export function pageResponses<T extends TSchema> (paging: Paging, item: T) {
  return paging === 'offset'
    ? { 200: pageAnswer(pageSchemaV1(item)), 304: NOT_MODIFIED }
    : { 200: pageAnswer(pageSchemaV2(item)), 304: NOT_MODIFIED, 400: problemResponse('InvalidCursor') }
}

/**
 * A weak ETag of a page: what its body is made of, each item by its id and its own validator (the
 * validator moves with every change to the item, the id tells a new item from a deleted one at the
 * same versao), in order, then the total, the links and the version. Hashed as one text: each update
 * of a hash is a call into native code.
 */
export function pageEtag<T extends { id: string }> (version: string, items: T[], validator: (item: T) => string, total: number | undefined, links: Link[]): string {
  let text = `${version}\n${total ?? ''}\n`
  for (const link of links) text += `${link.href} `
  text += '\n'
  for (const item of items) text += `${item.id}:${validator(item)} `
  return `W/"${createHash('sha1').update(text).digest('base64url')}"`
}

export interface CollectionQuery {
  /** Filled in by validation (its default); absent only to the type checker. */
  limit?: number
  offset?: number
  cursor?: string
  sort?: string
}

export interface CollectionOptions<F extends string, Filter extends Record<string, string | undefined>, T> {
  version: string
  paging: Paging
  /** The collection's path without the version, e.g. `/vagas`. */
  path: string
  href: (path: string) => string
  filter: Filter
  /** Filters as they appear in links (a nested collection's parent is in its path instead). */
  linkFilter: Record<string, string | undefined>
  query: CollectionQuery
  sortFields: readonly F[]
  defaultSort: string
  list: (request: ListRequest<F, Filter>) => Promise<ListResult<T>>
  toBody: ItemRepresentation<T>
  /** The item's own ETag: part of the page's. */
  validator: (item: T & { id: string }) => string
  /** Takes the page's validators, and the 304 when the client's copy is current. */
  reply: FastifyReply
}

/**
 * The page's ETag; true when the client holds this page already (If-None-Match). Pages stay
 * `no-store` for HTTP caches: the ETag serves a client that polls with the copy it keeps itself.
 */
function validated (reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag)
  return ifNoneMatchHits(reply.request.headers['if-none-match'], etag)
}

/** The page's body, for the route's schema serializer (pageSchemaV1 or pageSchemaV2, by whether it has a total). */
function pageBody<T> (items: T[], toBody: ItemRepresentation<T>, href: (path: string) => string, page: { total?: number, offset?: number, limit: number, links: Link[] }) {
  return { items: items.map(item => toBody(item, href)), ...page }
}

export async function collectionPage<F extends string, Filter extends Record<string, string | undefined>, T extends { id: string }> (options: CollectionOptions<F, Filter, T>) {
  const { query, href, path } = options
  const limit = query.limit ?? DEFAULT_LIMIT
  const sort = parseSort(query.sort, options.sortFields, options.defaultSort)
  const sortParam = query.sort === undefined ? undefined : sortText(sort)
  const link = (extra: Record<string, string | number | undefined>): string =>
    href(path + queryString({ ...options.linkFilter, sort: sortParam, limit, ...extra }))

  if (options.paging === 'offset') {
    const offset = query.offset ?? 0
    const result = await options.list({ filter: options.filter, sort, limit, page: { kind: 'offset', offset } })
    const links: Link[] = [{ rel: 'self', href: link({ offset }), method: 'GET' }]
    if (result.next !== undefined) links.push({ rel: 'next', href: link({ offset: offset + limit }), method: 'GET' })
    if (offset > 0) links.push({ rel: 'prev', href: link({ offset: Math.max(0, offset - limit) }), method: 'GET' })
    const total = result.total ?? 0
    if (validated(options.reply, pageEtag(options.version, result.items, options.validator, total, links))) return options.reply.code(304).send()
    return pageBody(result.items, options.toBody, href, { total, offset, limit, links })
  }

  const scope = { collection: path, sort: sortText(sort), filter: options.filter }
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope)
  let result: ListResult<T>
  try {
    result = await options.list({ filter: options.filter, sort, limit, page: { kind: 'cursor', after } })
  } catch (error) {
    if (error instanceof InvalidPositionError) throw cursorProblem()
    throw error
  }
  const links: Link[] = [{ rel: 'self', href: link({ cursor: query.cursor }), method: 'GET' }]
  if (result.next !== undefined) links.push({ rel: 'next', href: link({ cursor: encodeCursor(result.next, scope) }), method: 'GET' })
  if (validated(options.reply, pageEtag(options.version, result.items, options.validator, undefined, links))) return options.reply.code(304).send()
  return pageBody(result.items, options.toBody, href, { limit, links })
}
