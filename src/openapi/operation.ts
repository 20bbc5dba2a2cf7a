import { Type } from '@sinclair/typebox'
import type { RouteOptions } from 'fastify'

// What every OpenAPI operation gains from the route declaration beyond its own schema: the security
// requirement the bearer-auth plugin enforces (from the same `config.scopes`), the problem answers,
// and the version report headers.

export const BEARER_SCHEME = 'bearerAuth'

export const ProblemSchema = Type.Object({
  type: Type.String({ description: 'A URN naming the kind of problem', examples: ['urn:problem-type:recrutamento:UnsupportedApiVersion'] }),
  title: Type.String({ examples: ['Bad Request'] }),
  status: Type.Integer({ minimum: 400, maximum: 599, examples: [400] }),
  detail: Type.Optional(Type.String({ examples: ['API version 3.0 is not supported; the supported versions are 1.0, 2.0.'] })),
  instance: Type.String({ description: 'The path of the request', examples: ['/api/v3/user'] }),
  code: Type.Optional(Type.String({ description: 'Machine-readable cause', examples: ['UnsupportedApiVersion'] })),
  requestId: Type.String({ description: 'Matches the x-request-id header and the log' })
}, { additionalProperties: true, description: 'An RFC 9457 problem' })

function problem (description: string) {
  return { description, content: { 'application/problem+json': { schema: ProblemSchema } } }
}

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

/** The route's schema as its OpenAPI operation: security, problem answers, report headers, deprecation. */
export function operationSchema (route: RouteOptions, options: OperationOptions): Schema {
  const schema = { ...(route.schema as Schema | undefined) }
  const responses: Record<string, unknown> = {}
  const reportHeaders = options.deprecated ? { ...VERSION_REPORT_HEADERS, ...DEPRECATION_HEADERS } : VERSION_REPORT_HEADERS
  for (const [status, response] of Object.entries(schema.response ?? {})) {
    responses[status] = options.versioned && status.startsWith('2') ? withHeaders(response, reportHeaders) : response
  }

  const scopes = route.config?.scopes
  const optionalAuth = route.config?.auth === 'optional'
  if (scopes !== undefined || optionalAuth) {
    responses['401'] ??= problem('The bearer token is missing, invalid or expired (WWW-Authenticate names the cause)')
  }
  if (scopes !== undefined && scopes.length > 0) responses['403'] ??= problem('The bearer token lacks a required scope')
  if (options.versioned) responses['400'] ??= problem('The request is invalid, or names an API version that is malformed, ambiguous or unsupported')
  else if (schema.body !== undefined || schema.querystring !== undefined) responses['400'] ??= problem('The request is invalid')
  if (route.url.includes(':')) responses['404'] ??= problem('No resource is found at this URI')
  responses['500'] ??= problem('An unexpected failure; details are only in the service log')

  schema.response = responses
  schema.operationId ??= defaultOperationId(route)
  // Public routes say so explicitly; optional authentication accepts no token or a bearer token.
  schema.security = scopes !== undefined
    ? [{ [BEARER_SCHEME]: [...scopes] }]
    : optionalAuth ? [{}, { [BEARER_SCHEME]: [] }] : []
  if (options.deprecated) schema.deprecated = true
  return schema
}

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }

/** Every problem answer points at one `components.schemas.Problem` instead of repeating it. */
export function shareProblemSchema<D extends { paths?: Record<string, Record<string, unknown>>, components?: Record<string, unknown> }> (document: D): D {
  let used = false
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations) as Operation[]) {
      for (const response of Object.values(operation.responses ?? {})) {
        const media = response.content?.['application/problem+json']
        if (media === undefined) continue
        media.schema = { $ref: '#/components/schemas/Problem' }
        used = true
      }
    }
  }
  if (!used) return document
  const components = document.components ?? {}
  return { ...document, components: { ...components, schemas: { ...(components.schemas as object | undefined), Problem: ProblemSchema } } }
}

/** The bearer scheme is listed only in documents where some operation requires it. */
export function dropUnusedBearerScheme<D extends { paths?: Record<string, Record<string, unknown>>, components?: Record<string, unknown> }> (document: D): D {
  const operations = Object.values(document.paths ?? {}).flatMap(ops => Object.values(ops) as Array<{ security?: Array<Record<string, unknown>> }>)
  if (operations.some(operation => operation.security?.some(requirement => BEARER_SCHEME in requirement) === true)) return document
  const { securitySchemes: _unused, ...components } = document.components ?? {}
  return { ...document, components }
}
