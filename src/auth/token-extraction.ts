import type { FastifyRequest } from 'fastify'
import { headerCount } from '../http/input/raw-headers.ts'
import { InvalidAuthRequestError, InvalidTokenError } from './errors.ts'

export type TokenSource = 'header' | 'query' | 'body'

export interface ExtractedToken {
  token: string
  source: TokenSource
}

export interface ExtractionOptions {
  /** Accept `?access_token=` (RFC 6750 section 2.3, not recommended). */
  allowQuery: boolean
}

// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
const AUTHORIZATION = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?:[ \t]+(.*))?$/
const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i

function headerToken (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  if (headerCount(request.raw.rawHeaders, 'authorization') > 1) throw new InvalidAuthRequestError('The request carries more than one Authorization header; send exactly one.')
  const match = AUTHORIZATION.exec(header.trim())
  // Credentials of another scheme (Basic, Digest...) are not ours: the request carries no bearer token.
  if (match === null || match[1]!.toLowerCase() !== 'bearer') return undefined
  const token = match[2]?.trim() ?? ''
  if (token === '') throw new InvalidAuthRequestError('The Authorization header names the Bearer scheme but carries no token.')
  return token
}

function fieldToken (container: unknown, where: string): string | undefined {
  if (container === null || typeof container !== 'object') return undefined
  const value = (container as Record<string, unknown>).access_token
  if (value === undefined) return undefined
  if (Array.isArray(value)) throw new InvalidAuthRequestError(`The access_token ${where} is repeated.`)
  if (typeof value !== 'string' || value === '') throw new InvalidAuthRequestError(`The access_token ${where} is empty.`)
  // Whatever happens next, the handler never sees the token among its inputs.
  delete (container as Record<string, unknown>).access_token
  return value
}

// RFC 6750 section 2.2: only a single-part form body, never on GET (nor HEAD).
export function bodyMayCarryToken (request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false
  const type = request.headers['content-type']
  return type !== undefined && FORM_CONTENT_TYPE.test(type)
}

const QUERY_TOKEN_OFF = 'This service does not accept a token in the query string; send it in the Authorization header.'

function wellFormed (extracted: ExtractedToken): ExtractedToken {
  if (!B64TOKEN.test(extracted.token)) throw new InvalidTokenError('malformed')
  return extracted
}

/**
 * The bearer token the request's head carries (Authorization header or query string), read before
 * the body is. Returns undefined when there is none; throws when the head is malformed or uses both.
 */
export function extractHeadToken (request: FastifyRequest, options: ExtractionOptions): ExtractedToken | undefined {
  const header = headerToken(request)
  const query = fieldToken(request.query, 'query parameter')
  if (query !== undefined && !options.allowQuery) throw new InvalidAuthRequestError(QUERY_TOKEN_OFF)
  if (header !== undefined && query !== undefined) throw new InvalidAuthRequestError(onePlace(['header', 'query']))
  if (header !== undefined) return wellFormed({ token: header, source: 'header' })
  return query === undefined ? undefined : wellFormed({ token: query, source: 'query' })
}

/** The bearer token of a form body, once it is parsed; undefined when there is none. */
export function extractBodyToken (request: FastifyRequest): ExtractedToken | undefined {
  const token = bodyMayCarryToken(request) ? fieldToken(request.body, 'form field') : undefined
  return token === undefined ? undefined : wellFormed({ token, source: 'body' })
}

/** The refusal of a request that carries a token in more than one of the places RFC 6750 allows. */
export function onePlace (sources: readonly TokenSource[]): string {
  return `The request carries a token in more than one place (${sources.join(', ')}); send exactly one.`
}
