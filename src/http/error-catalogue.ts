// Every problem the service answers with, by code: its status, when it happens, and which operations
// can give it. The OpenAPI documents declare each operation's error answers from this table, so a new
// code is one entry here (and, for a route's own code, its name in that route's schema).

/** What decides which catalogued problems an operation can answer. */
export interface OperationTraits {
  /** An `/api` operation: the version is read from the request. */
  versioned: boolean
  /** POST, PUT, PATCH or DELETE: a request body is parsed when one is sent. */
  takesBody: boolean
  /** Declares a body, query or header schema. */
  validated: boolean
  /** Has path parameters that name a resource. */
  parametric: boolean
  /** Verifies a bearer token when one is sent. */
  authenticates: boolean
  /** Refuses requests without a token. */
  tokenRequired: boolean
  /** Requires scopes. */
  scoped: boolean
  rateLimited: boolean
  /** Refused at once while the process sheds load. */
  shed: boolean
  /** Runs under HANDLER_TIMEOUT. */
  timed: boolean
  /** Needs the database. */
  database: boolean
}

/**
 * Who can answer a code: the operations a predicate selects; `route`, the routes that declare the
 * code in their schema; `connection`, nobody in particular, since it is refused before any operation
 * is chosen (Node's parser, the router, a method the path does not have).
 */
export type AnsweredBy = ((operation: OperationTraits) => boolean) | 'route' | 'connection'

export interface CatalogueEntry {
  status: number
  code: string
  when: string
  answeredBy: AnsweredBy
}

const always = (): boolean => true

export const ERROR_CATALOGUE: readonly CatalogueEntry[] = [
  { status: 400, code: 'ValidationFailed', when: 'A field fails its schema; `errors` lists each one', answeredBy: op => op.validated },
  { status: 400, code: 'InvalidJson', when: 'The body is not valid JSON, not valid UTF-8, or holds a lone surrogate', answeredBy: op => op.takesBody },
  { status: 400, code: 'EmptyJsonBody', when: 'The body is empty although its Content-Type is JSON', answeredBy: op => op.takesBody },
  { status: 400, code: 'InvalidContentLength', when: 'Content-Length does not match the body', answeredBy: op => op.takesBody },
  { status: 400, code: 'InvalidApiVersion', when: 'A version is malformed; `sources` names where', answeredBy: op => op.versioned },
  { status: 400, code: 'AmbiguousApiVersion', when: 'Different versions are named; `sources` lists each way and value', answeredBy: op => op.versioned },
  { status: 400, code: 'UnsupportedApiVersion', when: 'The version is not supported, or this operation is served only by other versions; `supportedVersions` lists them', answeredBy: op => op.versioned },
  { status: 400, code: 'InvalidAuthRequest', when: 'The token is sent in two places, over plain HTTP, or in the query when that is off', answeredBy: op => op.authenticates },
  { status: 400, code: 'InvalidCursor', when: 'The cursor was not issued by this service, or belongs to another sort or filter', answeredBy: 'route' },
  { status: 400, code: 'TimestampInFuture', when: 'The heartbeat\'s timestamp is further ahead than HEARTBEAT_MAX_SKEW_MS', answeredBy: 'route' },
  { status: 400, code: 'AlreadyExpired', when: 'expiresAt is in the past', answeredBy: 'route' },
  { status: 400, code: 'InvalidUrl', when: 'A percent-encoded sequence in the URL path is malformed or not UTF-8', answeredBy: 'connection' },
  { status: 400, code: 'MissingHost', when: 'An HTTP/1.1 request has no Host header', answeredBy: 'connection' },
  { status: 400, code: 'MalformedRequest', when: 'The request is not valid HTTP', answeredBy: 'connection' },
  { status: 401, code: 'TokenRequired', when: 'No bearer token was sent', answeredBy: op => op.tokenRequired },
  { status: 401, code: 'InvalidToken', when: 'The token is malformed, expired, revoked or not for this service (WWW-Authenticate names the cause)', answeredBy: op => op.authenticates },
  { status: 403, code: 'InsufficientScope', when: 'The token lacks a scope this operation requires', answeredBy: op => op.scoped },
  { status: 404, code: 'NotFound', when: 'No resource is found at this URI', answeredBy: op => op.parametric },
  { status: 405, code: 'MethodNotAllowed', when: 'The path exists, the method does not (Allow lists them)', answeredBy: 'connection' },
  { status: 408, code: 'RequestTimeout', when: 'The request did not arrive within REQUEST_TIMEOUT', answeredBy: always },
  { status: 409, code: 'ActionNotAllowed', when: 'The candidato\'s state does not allow the action; `currentStatus` and `allowedActions` say what does', answeredBy: 'route' },
  { status: 409, code: 'VagaFechada', when: 'The target vaga is closed', answeredBy: 'route' },
  { status: 409, code: 'SameVaga', when: 'The target vaga is the candidato\'s current one', answeredBy: 'route' },
  { status: 409, code: 'VagaHasCandidatos', when: 'Candidatos are in the vaga; move or remove them first', answeredBy: 'route' },
  { status: 409, code: 'DuplicateEmail', when: 'Another candidato has this e-mail address', answeredBy: 'route' },
  { status: 412, code: 'PreconditionFailed', when: 'If-Match names another version of the resource; nothing was changed', answeredBy: 'route' },
  { status: 413, code: 'BodyTooLarge', when: 'The body is larger than this operation accepts (BODY_LIMIT)', answeredBy: op => op.takesBody },
  { status: 414, code: 'UriTooLong', when: 'A path segment where an id or name goes is longer than 100 characters', answeredBy: op => op.parametric },
  { status: 415, code: 'UnsupportedMediaType', when: 'The body\'s Content-Type is not JSON', answeredBy: op => op.takesBody },
  { status: 422, code: 'VagaNotFound', when: 'No vaga has the id in `vagaId`', answeredBy: 'route' },
  { status: 422, code: 'IdempotencyKeyReused', when: 'The Idempotency-Key was used for another request', answeredBy: 'route' },
  { status: 429, code: 'RateLimited', when: 'The caller used up RATE_LIMIT_MAX for this window (Retry-After says when to retry)', answeredBy: op => op.rateLimited },
  { status: 431, code: 'HeadersTooLarge', when: 'The request head is larger than HEADER_LIMIT', answeredBy: always },
  { status: 500, code: 'InternalError', when: 'An unexpected failure; details are only in the service log', answeredBy: always },
  { status: 503, code: 'ServiceUnavailable', when: 'A dependency is down', answeredBy: op => op.timed },
  { status: 503, code: 'Starting', when: 'The instance has not yet been ready for the first time (Retry-After)', answeredBy: op => op.database },
  { status: 503, code: 'DatabaseUnavailable', when: 'The database is unreachable or not migrated yet (Retry-After)', answeredBy: op => op.database },
  { status: 503, code: 'Overloaded', when: 'The service is shedding load (Retry-After)', answeredBy: op => op.shed },
  { status: 503, code: 'HandlerTimeout', when: 'The request took longer than HANDLER_TIMEOUT (Retry-After)', answeredBy: op => op.timed },
  { status: 503, code: 'TokenCheckUnavailable', when: 'The key server or introspection endpoint is down (Retry-After)', answeredBy: op => op.authenticates }
]

const BY_CODE = new Map(ERROR_CATALOGUE.map(entry => [entry.code, entry]))

export function catalogueEntry (code: string): CatalogueEntry {
  const entry = BY_CODE.get(code)
  if (entry === undefined) throw new Error(`Problem code ${code} is not in the error catalogue (src/http/error-catalogue.ts)`)
  return entry
}

/** The codes an operation with these traits can answer, whatever its route declares besides. */
export function codesAnsweredBy (operation: OperationTraits): CatalogueEntry[] {
  return ERROR_CATALOGUE.filter(entry => typeof entry.answeredBy === 'function' && entry.answeredBy(operation))
}
