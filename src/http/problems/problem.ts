import { STATUS_CODES } from 'node:http'

/** Fields of an RFC 9457 problem beyond status; unknown keys become extension members. */
export interface ProblemFields {
  type?: string
  title?: string
  detail?: string
  /** Machine-readable cause, stable across releases. */
  code?: string
  /** Response headers that belong to this problem (Allow, WWW-Authenticate, Retry-After, ...). */
  headers?: Record<string, string>
  [extension: string]: unknown
}

/** A failure the client may see: thrown anywhere, answered as application/problem+json. */
export class Problem extends Error {
  readonly status: number
  readonly fields: ProblemFields

  constructor (status: number, fields: ProblemFields = {}) {
    super(fields.detail ?? STATUS_CODES[status] ?? 'Error')
    this.name = 'Problem'
    this.status = status
    this.fields = fields
  }
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8'

/** Problem types are URNs: stable identifiers that nobody should try to dereference. */
export function problemType (code: string | undefined): string {
  return code === undefined ? 'about:blank' : `urn:problem-type:recrutamento:${code}`
}

/** A problem's `instance`: the path the client sent (before any version rewrite), without its query. */
export function problemInstance (originalUrl: string): string {
  const query = originalUrl.indexOf('?')
  return query === -1 ? originalUrl : originalUrl.slice(0, query)
}

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail?: string
  instance: string
  [extension: string]: unknown
}

export function problemBody (problem: Problem, instance: string, requestId: string): ProblemBody {
  const { type, title, detail, code, headers: _headers, ...extensions } = problem.fields
  return {
    type: type ?? problemType(code),
    title: title ?? STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    ...(detail !== undefined && { detail }),
    instance,
    ...(code !== undefined && { code }),
    requestId,
    ...extensions
  }
}
