import { STATUS_CODES } from 'node:http'
import { Problem, problemType } from './problem.ts'

// Every problem the service answers with, by code: its status, its detail, its headers, when it
// happens, and which operations can give it. Problems are made here only (`problem(code)`), and the
// OpenAPI documents declare each operation's error answers from this table, so a new code is one
// entry here (and, for a route's own code, its name in that route's schema).

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
  /** The detail every answer with this code carries, unless the cause needs its own words. */
  detail: string
  /** "Try again shortly": the answer carries `Retry-After: RETRY_AFTER_SECONDS`. */
  retryAfter?: true
  /** A refusal the service chose (an outage, load): counted in the refusal log, never logged one by one. */
  counted?: true
  when: string
  answeredBy: AnsweredBy
}

const always = (): boolean => true

const ENTRIES = [
  { status: 400, code: 'ValidationFailed', detail: 'The request input is invalid.', when: 'A field fails its schema; `errors` lists each one', answeredBy: op => op.validated },
  { status: 400, code: 'InvalidJson', detail: 'The request body is not valid JSON.', when: 'The body is not valid JSON, not valid UTF-8, or holds a lone surrogate', answeredBy: op => op.takesBody },
  { status: 400, code: 'EmptyJsonBody', detail: 'The request body is empty although its Content-Type is JSON.', when: 'The body is empty although its Content-Type is JSON', answeredBy: op => op.takesBody },
  { status: 400, code: 'InvalidContentLength', detail: 'Content-Length does not match the body.', when: 'Content-Length does not match the body', answeredBy: op => op.takesBody },
  { status: 400, code: 'InvalidApiVersion', detail: 'The API version is malformed; versions look like 2.0 or 2.', when: 'A version is malformed; `sources` names where', answeredBy: op => op.versioned },
  { status: 400, code: 'AmbiguousApiVersion', detail: 'The request names different API versions; name one.', when: 'Different versions are named; `sources` lists each way and value', answeredBy: op => op.versioned },
  { status: 400, code: 'UnsupportedApiVersion', detail: 'This API version is not supported.', when: 'The version is not supported, or this operation is served only by other versions; `supportedVersions` lists them', answeredBy: op => op.versioned },
  { status: 400, code: 'InvalidAuthRequest', detail: 'The access token is sent in a way this service does not accept.', when: 'The token is sent in two places, over plain HTTP, or in the query when that is off', answeredBy: op => op.authenticates },
  { status: 400, code: 'InvalidCursor', detail: 'The request querystring is invalid.', when: 'The cursor was not issued by this service, or belongs to another sort or filter', answeredBy: 'route' },
  { status: 400, code: 'TimestampInFuture', detail: 'The timestamp is further in the future than the allowed clock skew.', when: 'The heartbeat\'s timestamp is further ahead than HEARTBEAT_MAX_SKEW_MS', answeredBy: 'route' },
  { status: 400, code: 'AlreadyExpired', detail: 'expiresAt is in the past: that token is already refused as expired.', when: 'expiresAt is in the past', answeredBy: 'route' },
  { status: 400, code: 'InvalidUrl', detail: 'The URL is not valid: a percent-encoded sequence in its path is malformed or not UTF-8.', when: 'A percent-encoded sequence in the URL path is malformed or not UTF-8', answeredBy: 'connection' },
  { status: 400, code: 'MissingHost', detail: 'An HTTP/1.1 request must carry a Host header.', when: 'An HTTP/1.1 request has no Host header', answeredBy: 'connection' },
  { status: 400, code: 'MalformedRequest', detail: 'The request is not valid HTTP.', when: 'The request is not valid HTTP', answeredBy: 'connection' },
  { status: 401, code: 'TokenRequired', detail: 'This resource needs a bearer access token in the Authorization header.', when: 'No bearer token was sent', answeredBy: op => op.tokenRequired },
  { status: 401, code: 'InvalidToken', detail: 'The access token is not valid.', when: 'The token is malformed, expired, revoked or not for this service (WWW-Authenticate names the cause)', answeredBy: op => op.authenticates },
  { status: 403, code: 'WebhookTypesForbidden', detail: 'The subscription\'s creator may not read these event types: a vaga\'s need vagas:read, a candidato\'s candidatos:read, and eventos:read allows every type.', when: 'A subscription asks for event types its creator may not read (`tipos` lists them), or its creator may read none', answeredBy: 'route' },
  { status: 403, code: 'InsufficientScope', detail: 'The access token lacks a scope this resource needs.', when: 'The token lacks a scope this operation requires', answeredBy: op => op.scoped },
  { status: 404, code: 'NotFound', detail: 'No resource is found at this URI.', when: 'No resource is found at this URI', answeredBy: op => op.parametric },
  { status: 405, code: 'MethodNotAllowed', detail: 'This method is not supported here; the methods are listed in Allow.', when: 'The path exists, the method does not (Allow lists them)', answeredBy: 'connection' },
  { status: 408, code: 'RequestTimeout', detail: 'The request was not received in time.', when: 'The request did not arrive within REQUEST_TIMEOUT', answeredBy: always },
  { status: 409, code: 'ActionNotAllowed', detail: "The candidato's state does not allow this action.", when: 'The candidato\'s state does not allow the action; `currentStatus` and `allowedActions` say what does', answeredBy: 'route' },
  { status: 409, code: 'VagaFechada', detail: 'The vaga is closed and accepts no candidatos.', when: 'The target vaga is closed', answeredBy: 'route' },
  { status: 409, code: 'SameVaga', detail: 'The candidato is already in this vaga.', when: 'The target vaga is the candidato\'s current one', answeredBy: 'route' },
  { status: 409, code: 'VagaHasCandidatos', detail: 'Candidatos are in this vaga; move or remove them before removing it.', when: 'Candidatos are in the vaga; move or remove them first', answeredBy: 'route' },
  { status: 409, code: 'WebhookLimitReached', detail: 'This service keeps no more webhook subscriptions (WEBHOOK_MAX_SUBSCRIPTIONS); remove one first.', when: 'The service already keeps WEBHOOK_MAX_SUBSCRIPTIONS subscriptions', answeredBy: 'route' },
  { status: 409, code: 'DuplicateEmail', detail: 'Another candidato has this e-mail address (addresses are compared in any case and Unicode form).', when: 'Another candidato has this e-mail address', answeredBy: 'route' },
  { status: 410, code: 'CursorExpired', detail: 'The cursor points before the oldest event kept (EVENT_RETENTION_HOURS): events after it may have been removed. Read the resources again, then the feed without a cursor.', when: 'The event cursor is older than the oldest event kept; events after it may have been removed', answeredBy: 'route' },
  { status: 412, code: 'PreconditionFailed', detail: 'The resource has changed since the ETag in If-Match; read it again and retry. Nothing was changed.', when: 'If-Match names another version of the resource; nothing was changed', answeredBy: 'route' },
  { status: 413, code: 'BodyTooLarge', detail: 'The request body is larger than this operation accepts.', when: 'The body is larger than this operation accepts (BODY_LIMIT)', answeredBy: op => op.takesBody },
  { status: 414, code: 'UriTooLong', detail: 'A segment of the URL path is longer than this service accepts.', when: 'A path segment where an id or name goes is longer than 100 characters', answeredBy: op => op.parametric },
  { status: 415, code: 'UnsupportedMediaType', detail: "The request body's Content-Type is not supported.", when: 'The body\'s Content-Type is not JSON', answeredBy: op => op.takesBody },
  { status: 422, code: 'VagaNotFound', detail: 'No vaga has this id.', when: 'No vaga has the id in `vagaId`', answeredBy: 'route' },
  { status: 422, code: 'WebhookTargetRefused', detail: 'The webhook target is refused: not a public address, or it does not resolve.', when: 'The target URL\'s host does not resolve, or resolves to a loopback, private, link-local or other non-public address; the answer does not say which', answeredBy: 'route' },
  { status: 422, code: 'IdempotencyKeyReused', detail: 'This Idempotency-Key was already used with another request body.', when: 'The Idempotency-Key was used for another request', answeredBy: 'route' },
  { status: 429, code: 'RateLimited', detail: 'Too many requests; retry after the time in Retry-After.', when: 'The caller used up RATE_LIMIT_MAX for this window (Retry-After says when to retry)', answeredBy: op => op.rateLimited },
  { status: 431, code: 'HeadersTooLarge', detail: 'The request headers are larger than this service accepts.', when: 'The request head is larger than HEADER_LIMIT', answeredBy: always },
  { status: 500, code: 'InternalError', detail: 'The server failed to answer this request. Quote the requestId when reporting it.', when: 'An unexpected failure; details are only in the service log', answeredBy: always },
  { status: 503, code: 'ServiceUnavailable', detail: 'The service cannot answer right now; try again shortly.', retryAfter: true, when: 'A dependency is down', answeredBy: op => op.timed },
  { status: 503, code: 'Starting', detail: 'The service is starting; try again shortly.', retryAfter: true, counted: true, when: 'The instance has not yet been ready for the first time (Retry-After)', answeredBy: op => op.database },
  { status: 503, code: 'DatabaseUnavailable', detail: 'The database is not reachable right now; try again shortly.', retryAfter: true, counted: true, when: 'The database is unreachable or not migrated yet (Retry-After)', answeredBy: op => op.database },
  { status: 503, code: 'StorageFull', detail: 'The database has no room left to store this change; nothing was stored. Try again later.', retryAfter: true, counted: true, when: 'The database\'s disk is full; nothing was stored (Retry-After)', answeredBy: op => op.database && op.takesBody },
  { status: 503, code: 'Overloaded', detail: 'The service is overloaded; try again shortly.', retryAfter: true, counted: true, when: 'The service is shedding load (Retry-After)', answeredBy: op => op.shed },
  { status: 503, code: 'HandlerTimeout', detail: 'The request took longer than this service allows; try again shortly.', retryAfter: true, counted: true, when: 'The request took longer than HANDLER_TIMEOUT (Retry-After)', answeredBy: op => op.timed },
  { status: 503, code: 'TokenCheckUnavailable', detail: 'The access token cannot be checked right now; try again shortly.', retryAfter: true, counted: true, when: 'The key server or introspection endpoint is down (Retry-After)', answeredBy: op => op.authenticates }
] as const satisfies readonly CatalogueEntry[]

export type ProblemCode = typeof ENTRIES[number]['code']

export const ERROR_CATALOGUE: readonly CatalogueEntry[] = ENTRIES

const BY_CODE = new Map<string, CatalogueEntry>(ERROR_CATALOGUE.map(entry => [entry.code, entry]))

export function catalogueEntry (code: string): CatalogueEntry {
  const entry = BY_CODE.get(code)
  if (entry === undefined) throw new Error(`Problem code ${code} is not in the error catalogue (src/http/problems/error-catalogue.ts)`)
  return entry
}

/** What a site may add to a catalogued problem: its own detail, headers, extension members. */
export interface ProblemOptions {
  detail?: string
  /** Headers of this answer only (Allow, WWW-Authenticate); the code's own come from `defaultHeaders`. */
  headers?: Record<string, string>
  [extension: string]: unknown
}

/** The one way to make a problem: status, type, title and detail come from the catalogue. */
export function problem (code: ProblemCode, options: ProblemOptions = {}): Problem {
  const entry = catalogueEntry(code)
  // Members the catalogue or the answer decide are not a site's to set.
  const { status: _status, type: _type, title: _title, code: _code, instance: _instance, requestId: _requestId, ...own } = options
  return new Problem(entry.status, {
    ...own,
    type: problemType(code),
    title: STATUS_CODES[entry.status] ?? 'Error',
    detail: options.detail ?? entry.detail,
    code
  })
}

/** A framework's client error that no code names: its status and message, as the framework gave them. */
export function uncodedProblem (status: number, detail: string): Problem {
  return new Problem(status, { detail })
}

export interface ProblemSettings {
  /** RETRY_AFTER_SECONDS: how long a client told "try again shortly" should wait. */
  retryAfterSeconds: number
}

/** The headers every answer with this code carries (a site's own headers are added to these). */
export function defaultHeaders (code: string | undefined, settings: ProblemSettings): Record<string, string> | undefined {
  const entry = code === undefined ? undefined : BY_CODE.get(code)
  return entry?.retryAfter === true ? { 'retry-after': String(settings.retryAfterSeconds) } : undefined
}

/** Whether a problem is a refusal the service chose, counted rather than logged with its cause. */
export function isCountedRefusal (problem: Problem): boolean {
  const code = problem.fields.code
  return code !== undefined && BY_CODE.get(code)?.counted === true
}

/** The codes an operation with these traits can answer, whatever its route declares besides. */
export function codesAnsweredBy (operation: OperationTraits): CatalogueEntry[] {
  return ERROR_CATALOGUE.filter(entry => typeof entry.answeredBy === 'function' && entry.answeredBy(operation))
}
