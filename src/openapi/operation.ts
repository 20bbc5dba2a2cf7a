import type { RouteOptions } from 'fastify'
import { securityOf } from '../auth/openapi-security.ts'
import { codesAnsweredBy, type OperationTraits } from '../http/problems/error-catalogue.ts'
import { routePolicy } from '../http/policy/route-policy.ts'
import { problemCodes, problemResponse } from '../http/problems/problem-response.ts'

// What every OpenAPI operation gains from the route declaration beyond its own schema: the security
// requirement the bearer-auth plugin enforces (from the same route policy), every error answer the
// error catalogue says it can give, and the version report headers.

const VERSION_REPORT_HEADERS = {
  'api-supported-versions': { type: 'string', description: 'The supported API versions', examples: ['1.0, 2.0'] },
  'api-deprecated-versions': { type: 'string', description: 'The deprecated API versions', examples: ['1.0'] },
  'x-api-version': { type: 'string', description: 'The API version that served the request', examples: ['2.0'] }
}

const DEPRECATION_HEADERS = {
  deprecation: { type: 'string', description: 'When this version was or will be deprecated (RFC 9745)', examples: ['@1780272000'] },
  sunset: { type: 'string', description: 'When this version may stop answering (RFC 8594), if set' },
  link: { type: 'string', description: 'Links to the documentation of the current version (rel="deprecation", rel="sunset")' }
}

/** `GET /health/:name` -> `getHealthByName`: stable, unique per method and path. */
function defaultOperationId (route: RouteOptions): string {
  const method = (Array.isArray(route.method) ? route.method[0] : route.method).toLowerCase()
  const words = route.url.split('/').filter(Boolean).map(segment => segment.startsWith(':') ? `by-${segment.slice(1)}` : segment)
  return method + words.join('-').split('-').map(word => word.charAt(0).toUpperCase() + word.slice(1)).join('')
}

type Schema = Record<string, unknown> & { response?: Record<string, unknown> }

export interface OperationOptions {
  /** The route belongs to a version group: its answers carry the version report headers. */
  versioned: boolean
  deprecated: boolean
}

function withHeaders (response: unknown, headers: Record<string, unknown>): unknown {
  if (typeof response !== 'object' || response === null) return response
  const existing = (response as { headers?: Record<string, unknown> }).headers
  return { ...response, headers: { ...headers, ...existing } }
}

// Methods whose requests Fastify parses a body for, when one is sent.
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** What the error catalogue needs to know of a route to tell which problems it can answer. */
export function operationTraits (route: RouteOptions, versioned: boolean): OperationTraits {
  const schema = (route.schema ?? {}) as Schema
  const policy = routePolicy(route)
  return {
    versioned,
    takesBody: [route.method].flat().some(method => BODY_METHODS.has(method)),
    validated: schema.body !== undefined || schema.querystring !== undefined || schema.headers !== undefined,
    parametric: route.url.includes(':'),
    authenticates: policy.access !== 'public',
    tokenRequired: policy.access === 'token',
    scoped: policy.scopes.length > 0,
    rateLimited: policy.rateLimited,
    shed: policy.shed,
    timed: policy.timed,
    database: policy.database
  }
}

type Response = { description?: string, content?: Record<string, unknown> }

/** A route's own answer for a status that can also be a problem: both media types, both descriptions. */
function withProblem (own: unknown, problem: ReturnType<typeof problemResponse>): unknown {
  const response = own as Response
  if (response.content === undefined) {
    // A bare schema: the JSON body of that status.
    return { description: `${response.description ?? 'The answer'}\n\n${problem.description}`, content: { 'application/json': { schema: own }, ...problem.content } }
  }
  return { ...response, description: `${response.description ?? ''}\n\n${problem.description}`, content: { ...response.content, ...problem.content } }
}

/** The route's schema as its OpenAPI operation: security, problem answers, report headers, deprecation. */
export function operationSchema (route: RouteOptions, options: OperationOptions): Schema {
  const schema = { ...(route.schema as Schema | undefined) }
  const responses: Record<string, unknown> = {}
  const reportHeaders = options.deprecated ? { ...VERSION_REPORT_HEADERS, ...DEPRECATION_HEADERS } : VERSION_REPORT_HEADERS
  // The codes of each error status: those the route declares first, then the catalogue's.
  const codes = new Map<string, string[]>()
  for (const [status, response] of Object.entries(schema.response ?? {})) {
    const declared = problemCodes(response)
    if (declared !== undefined) codes.set(status, [...declared])
    else responses[status] = options.versioned && status.startsWith('2') ? withHeaders(response, reportHeaders) : response
  }
  for (const entry of codesAnsweredBy(operationTraits(route, options.versioned))) {
    const status = String(entry.status)
    codes.set(status, [...(codes.get(status) ?? []), entry.code])
  }
  for (const [status, statusCodes] of [...codes].sort(([a], [b]) => a.localeCompare(b))) {
    const problem = problemResponse(...statusCodes)
    responses[status] = responses[status] === undefined ? problem : withProblem(responses[status], problem)
  }

  schema.response = responses
  schema.operationId ??= defaultOperationId(route)
  // Public routes say so explicitly; optional authentication accepts no token or a bearer token.
  schema.security = securityOf(routePolicy(route))
  if (options.deprecated) schema.deprecated = true
  return schema
}

/** Security schemes are listed only in documents where some operation requires a token. */
export function dropUnusedSecuritySchemes<D extends { paths?: Record<string, Record<string, unknown>>, components?: Record<string, unknown> }> (document: D): D {
  const operations = Object.values(document.paths ?? {}).flatMap(ops => Object.values(ops) as Array<{ security?: Array<Record<string, unknown>> }>)
  if (operations.some(operation => operation.security?.some(requirement => Object.keys(requirement).length > 0) === true)) return document
  const { securitySchemes: _unused, ...components } = document.components ?? {}
  return { ...document, components }
}
