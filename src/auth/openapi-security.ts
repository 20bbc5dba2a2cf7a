// How a route's declared access appears in the OpenAPI documents (@fastify/swagger reads
// `schema.security`): the scopes under an OAuth 2.0 client-credentials scheme, so tools can list them
// and find where tokens come from, and a plain bearer scheme beside it for a token obtained elsewhere.

import type { RoutePolicy } from '../http/policy/route-policy.ts'

export const OAUTH2_SCHEME_NAME = 'oauth2'
export const BEARER_SCHEME_NAME = 'bearerAuth'

/** What each scope grants; docs/api.md's scope table says the same. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'vagas:read': 'Read vacancies',
  'vagas:write': 'Create, change and delete vacancies',
  'candidatos:read': 'Read candidates',
  'candidatos:write': 'Create candidates and run their actions (candidatar, aprovar, reprovar, transferir)',
  'eventos:read': 'Read the event feed',
  'health:read': 'Detailed health endpoints',
  'metrics:read': 'Service metrics',
  'heartbeat:write': 'Push heartbeat messages',
  'tokens:revoke': 'Revoke access tokens and look revocations up',
  'webhooks:write': 'Manage webhook subscriptions and their signing secrets, and read their delivery attempts'
}

export function scopeDescription (scope: string): string | undefined {
  return SCOPE_DESCRIPTIONS[scope]
}

const BEARER_SCHEME = { type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT' }

function describedScopes (scopes: Iterable<string>): Array<[string, string]> {
  return [...scopes].sort().map(scope => [scope, scopeDescription(scope) ?? `Scope ${scope}`])
}

/**
 * The `components.securitySchemes` of the documents: every scope the routes declare, described. The
 * oauth2 scheme names where tokens come from, so it is there only with AUTH_TOKEN_URL: a token URL
 * this service does not answer would send generated clients and the docs' Authorize button nowhere.
 * Without it, operations name the bearer scheme and list their scopes in `x-scopes` (see bearerOnly).
 */
export function securitySchemes (tokenUrl: string | undefined, scopes: Iterable<string>) {
  if (tokenUrl === undefined) {
    return {
      [BEARER_SCHEME_NAME]: {
        ...BEARER_SCHEME,
        description: 'An OAuth 2.0 access token from the authorization server, sent as `Authorization: Bearer <token>` (RFC 6750); it must carry every scope the operation lists. The scopes:\n\n' +
          describedScopes(scopes).map(([scope, description]) => `- \`${scope}\`: ${description}`).join('\n') + '\n\nEach operation lists the scopes it needs in `x-scopes`.'
      }
    }
  }
  return {
    [OAUTH2_SCHEME_NAME]: {
      type: 'oauth2' as const,
      description: 'OAuth 2.0 access tokens from the authorization server (RFC 6749 client credentials); each operation lists the scopes it needs.',
      flows: { clientCredentials: { tokenUrl, scopes: Object.fromEntries(describedScopes(scopes)) } }
    },
    [BEARER_SCHEME_NAME]: {
      ...BEARER_SCHEME,
      description: 'The same OAuth 2.0 access token, obtained elsewhere and sent as `Authorization: Bearer <token>` (RFC 6750); it must carry the scopes the operation lists under `oauth2`.'
    }
  }
}

/**
 * An operation's security when the documents have no oauth2 scheme: the bearer scheme alone, and the
 * scopes it needs in `x-scopes` (linters accept scopes only under an OAuth scheme's flows).
 */
export function bearerOnly (security: Array<Record<string, string[]>>): { security: Array<Record<string, string[]>>, 'x-scopes'?: string[] } {
  const scopes = security.find(alternative => OAUTH2_SCHEME_NAME in alternative)?.[OAUTH2_SCHEME_NAME]
  if (scopes === undefined) return { security }
  const bearer = security.filter(alternative => !(OAUTH2_SCHEME_NAME in alternative))
  return scopes.length === 0 ? { security: bearer } : { security: bearer, 'x-scopes': scopes }
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
