// How a route's declared access appears in the OpenAPI documents (@fastify/swagger reads
// `schema.security`): the scopes under an OAuth 2.0 client-credentials scheme, so tools can list them
// and find where tokens come from, and a plain bearer scheme beside it for a token obtained elsewhere.

import type { RoutePolicy } from '../http/route-policy.js'

export const OAUTH2_SCHEME_NAME = 'oauth2'
export const BEARER_SCHEME_NAME = 'bearerAuth'

/** What each scope grants; docs/api.md's scope table says the same. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'vagas:read': 'Read vacancies',
  'vagas:write': 'Create, change and delete vacancies',
  'candidatos:read': 'Read candidates',
  'candidatos:write': 'Create candidates and run their actions (candidatar, aprovar, reprovar, transferir)',
  'health:read': 'Detailed health endpoints',
  'metrics:read': 'Service metrics',
  'heartbeat:write': 'Push heartbeat messages',
  'tokens:revoke': 'Revoke access tokens and look revocations up'
}

export function scopeDescription (scope: string): string | undefined {
  return SCOPE_DESCRIPTIONS[scope]
}

// Without AUTH_TOKEN_URL the scheme still lists the scopes; its description says no token URL is set.
const UNSET_TOKEN_URL = '/oauth/token'

/** The `components.securitySchemes` of the documents: every scope the routes declare, described. */
export function securitySchemes (tokenUrl: string | undefined, scopes: Iterable<string>) {
  return {
    [OAUTH2_SCHEME_NAME]: {
      type: 'oauth2' as const,
      description: 'OAuth 2.0 access tokens from the authorization server (RFC 6749 client credentials); each operation lists the scopes it needs.' +
        (tokenUrl === undefined ? ' This instance names no token endpoint (AUTH_TOKEN_URL is unset): ask its operators where tokens come from.' : ''),
      flows: {
        clientCredentials: {
          tokenUrl: tokenUrl ?? UNSET_TOKEN_URL,
          scopes: Object.fromEntries([...scopes].sort().map(scope => [scope, scopeDescription(scope) ?? `Scope ${scope}`]))
        }
      }
    },
    [BEARER_SCHEME_NAME]: {
      type: 'http' as const,
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The same OAuth 2.0 access token, obtained elsewhere and sent as `Authorization: Bearer <token>` (RFC 6750); it must carry the scopes the operation lists under `oauth2`.'
    }
  }
}

/** The operation's security requirement: the scopes, and an empty alternative when a token is optional. */
export function securityRequirement (scopes: readonly string[], optional: boolean): Array<Record<string, string[]>> {
  const token: Array<Record<string, string[]>> = [{ [OAUTH2_SCHEME_NAME]: [...scopes] }, { [BEARER_SCHEME_NAME]: [] }]
  return optional ? [{}, ...token] : token
}

/** The security requirement of a route's access: none for a public route. */
export function securityOf (policy: Pick<RoutePolicy, 'access' | 'scopes'>): Array<Record<string, string[]>> {
  return policy.access === 'public' ? [] : securityRequirement(policy.scopes, policy.access === 'optional')
}
