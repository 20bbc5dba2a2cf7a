import type { FastifyRequest } from 'fastify'
import { InvalidAuthRequestError, InvalidTokenError } from './errors.js'

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

// Node keeps the first of two Authorization headers and drops the other: only the raw list shows both.
function authorizationHeaderCount (rawHeaders: string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') count++
  return count
}

function headerToken (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  if (authorizationHeaderCount(request.raw.rawHeaders) > 1) throw new InvalidAuthRequestError('The request carries more than one Authorization header; send exactly one.')
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
function bodyMayCarryToken (request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false
  const type = request.headers['content-type']
  return type !== undefined && FORM_CONTENT_TYPE.test(type)
}

function bodyToken (request: FastifyRequest): string | undefined {
  return bodyMayCarryToken(request) ? fieldToken(request.body, 'form field') : undefined
}

const QUERY_TOKEN_OFF = 'This service does not accept a token in the query string; send it in the Authorization header.'

/**
 * Whether the request may carry a bearer token, judged from its head alone, before its body is read.
 * Throws, as extractToken does, when the Authorization header is malformed or repeated.
 */
export function mayCarryToken (request: FastifyRequest, options: ExtractionOptions): boolean {
  const query = request.query as Record<string, unknown> | undefined
  if (query?.access_token !== undefined && !options.allowQuery) throw new InvalidAuthRequestError(QUERY_TOKEN_OFF)
  return headerToken(request) !== undefined || query?.access_token !== undefined || bodyMayCarryToken(request)
}

/**
 * The request's bearer token, from exactly one of the three places RFC 6750 allows.
 * Returns undefined when there is none; throws when the request is malformed or uses two places.
 */
export function extractToken (request: FastifyRequest, options: ExtractionOptions): ExtractedToken | undefined {
  const found: ExtractedToken[] = []
  const header = headerToken(request)
  if (header !== undefined) found.push({ token: header, source: 'header' })
  const query = fieldToken(request.query, 'query parameter')
  if (query !== undefined) {
    if (!options.allowQuery) throw new InvalidAuthRequestError(QUERY_TOKEN_OFF)
    found.push({ token: query, source: 'query' })
  }
  const body = bodyToken(request)
  if (body !== undefined) found.push({ token: body, source: 'body' })

  if (found.length === 0) return undefined
  if (found.length > 1) throw new InvalidAuthRequestError(`The request carries a token in more than one place (${found.map(f => f.source).join(', ')}); send exactly one.`)
  const extracted = found[0]!
  if (!B64TOKEN.test(extracted.token)) throw new InvalidTokenError('malformed')
  return extracted
}
