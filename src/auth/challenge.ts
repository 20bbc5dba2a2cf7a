import type { Problem } from '../http/problems/problem.ts'
import { problem } from '../http/problems/error-catalogue.ts'
import { INVALID_TOKEN_DESCRIPTIONS, type InvalidTokenReason } from './errors.ts'

export interface ChallengeSettings {
  realm: string
  /** RFC 9728 metadata URL, added to 401 challenges when known. */
  resourceMetadata?: string
}

// RFC 6750 section 3: realm and error_description are quoted strings of %x20-21 / %x23-5B / %x5D-7E,
// scope tokens are %x21 / %x23-5B / %x5D-7E. Anything else is dropped rather than escaped.
function attributeValue (value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '')
}

/** `Bearer realm="...", name="value", ...` with the attributes in the order given. */
export function bearerChallenge (settings: ChallengeSettings, attributes: Array<[string, string]>, withMetadata: boolean): string {
  const parts = [`realm="${attributeValue(settings.realm)}"`]
  for (const [name, value] of attributes) parts.push(`${name}="${attributeValue(value)}"`)
  if (withMetadata && settings.resourceMetadata !== undefined) parts.push(`resource_metadata="${attributeValue(settings.resourceMetadata)}"`)
  return `Bearer ${parts.join(', ')}`
}

/** No credentials, or credentials of another scheme: 401 with no error attribute (RFC 6750 section 3.1). */
export function missingTokenProblem (settings: ChallengeSettings): Problem {
  return problem('TokenRequired', {
    headers: { 'www-authenticate': bearerChallenge(settings, [], true) }
  })
}

export function invalidRequestProblem (settings: ChallengeSettings, description: string): Problem {
  return problem('InvalidAuthRequest', {
    detail: description,
    headers: { 'www-authenticate': bearerChallenge(settings, [['error', 'invalid_request'], ['error_description', description]], false) }
  })
}

export function invalidTokenProblem (settings: ChallengeSettings, reason: InvalidTokenReason): Problem {
  const description = INVALID_TOKEN_DESCRIPTIONS[reason]
  return problem('InvalidToken', {
    detail: `${description}.`,
    headers: { 'www-authenticate': bearerChallenge(settings, [['error', 'invalid_token'], ['error_description', description]], true) }
  })
}

export function insufficientScopeProblem (settings: ChallengeSettings, required: readonly string[]): Problem {
  const scope = required.join(' ')
  return problem('InsufficientScope', {
    detail: `The access token lacks a scope this resource needs: ${scope}.`,
    requiredScopes: [...required],
    headers: { 'www-authenticate': bearerChallenge(settings, [['error', 'insufficient_scope'], ['scope', scope]], false) }
  })
}
