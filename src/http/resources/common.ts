// Request schemas, headers and answers shared by the resource routes.
import { createHash } from 'node:crypto'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Id } from '../../representations/fields.ts'
import type { Problem } from '../problems/problem.ts'
import { problem } from '../problems/error-catalogue.ts'
import { httpDate } from '../conventions/http-date.ts'
import { readDateTime } from '../input/date-time.ts'
import type { FieldIssue } from '../../domain/vaga.ts'
import type { IsoTimestamp } from '../../domain/iso-timestamp.ts'

export const IdParams = Type.Object({ id: Id })

/** The filter every collection takes: only the items changed after an instant. */
export const ChangedAfterFilter = {
  atualizadoApos: Type.Optional(Type.String({
    format: 'date-time',
    description: 'Only the items whose `atualizadoEm` is after this instant (RFC 3339, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z; pass the newest `atualizadoEm` already seen). A removed item is not listed.',
    examples: ['2026-05-04T13:45:12.345Z']
  }))
}

/** The instant of `atualizadoApos` as the API writes instants (UTC, milliseconds); its format took only those readDateTime reads. */
export function changedAfter (value: string | undefined): IsoTimestamp | undefined {
  return value === undefined ? undefined : readDateTime(value)!.toISOString()
}

export const ConditionalHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'ETags the client holds: 304 when one is current' })),
  'if-modified-since': Type.Optional(Type.String({ maxLength: 100, description: 'An HTTP date: 304 when nothing changed since' }))
})
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ maxLength: 1000, description: 'The ETag the change is based on: 412 when the resource has changed since' }))
})
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7E]+$',
    description: 'A client-chosen key (printable ASCII, up to 255): a retry with the same key and body returns the first answer for 24 hours'
  }))
})

export const ResourceHeaders = {
  etag: { type: 'string', description: 'A strong validator of this representation' },
  'last-modified': { type: 'string', description: 'When the resource last changed' }
}

/**
 * A single resource as read: a client may keep it but must revalidate it with its ETag before each
 * use (a 304 is cheap), and no shared cache may keep it, since the answer depends on the token.
 */
export const READ_CACHE_CONTROL = 'private, no-cache'

/** The 200 of a single-resource read: its validators and its Cache-Control. */
export const ReadHeaders = {
  'cache-control': { type: 'string', description: `\`${READ_CACHE_CONTROL}\`: revalidate with the ETag before each use` }
}

export function withHeaders<T extends TSchema> (schema: T, description: string, extra: Record<string, unknown> = {}) {
  return { description, content: { 'application/json': { schema } }, headers: { ...ResourceHeaders, ...extra } }
}

/** 400 with one entry per field, in the shape schema validation uses. */
export function fieldProblem (issues: FieldIssue[]): Problem {
  return problem('ValidationFailed', {
    detail: 'The request body is invalid.',
    errors: issues.map(issue => ({ in: 'body', ...issue }))
  })
}

export function notFound (): Problem {
  return problem('NotFound')
}

export function preconditionFailed (): Problem {
  return problem('PreconditionFailed')
}

/** Who acts (Principal.actor). Only routes that require a token act, so a caller is always known. */
export function actorOf (request: FastifyRequest): string {
  if (request.principal === undefined) throw new Error('a route that records its actor must require a token')
  return request.principal.actor
}

export function setValidators (reply: FastifyReply, etag: string, lastModified: Date | IsoTimestamp): FastifyReply {
  return reply.header('etag', etag).header('last-modified', httpDate(lastModified))
}

/** The headers of a single-resource read, its 200 and its 304 alike (RFC 9110 section 15.4.5). */
export function setReadHeaders (reply: FastifyReply, etag: string, lastModified: Date | IsoTimestamp): FastifyReply {
  return setValidators(reply, etag, lastModified).header('cache-control', READ_CACHE_CONTROL)
}

/** Canonical JSON (keys sorted), so the same body sent with keys in another order is the same request. */
function canonical (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map(key => [key, canonical((value as Record<string, unknown>)[key])]))
  }
  return value
}

export function fingerprint (version: string, body: unknown): string {
  return createHash('sha256').update(version).update('\n').update(JSON.stringify(canonical(body ?? null))).digest('base64url')
}

/** Links in the version that serves the request. */
export function hrefOf (request: FastifyRequest): (path: string) => string {
  return path => request.apiHref(path)
}
