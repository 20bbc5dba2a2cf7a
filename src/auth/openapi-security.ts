// How a route's declared access appears in the OpenAPI documents (@fastify/swagger reads
// `schema.security`); the documents plugin registers the scheme under this name.

export const BEARER_SCHEME_NAME = 'bearerAuth'

/** The `components.securitySchemes` entry for the documents. */
export const bearerSecurityScheme = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'An OAuth 2.0 access token (RFC 6750), sent as `Authorization: Bearer <token>`.'
} as const

/** The operation's security requirement: the scopes, and an empty alternative when a token is optional. */
export function securityRequirement (scopes: readonly string[], optional: boolean): Array<Record<string, string[]>> {
  const bearer = { [BEARER_SCHEME_NAME]: [...scopes] }
  return optional ? [bearer, {}] : [bearer]
}
