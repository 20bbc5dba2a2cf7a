// The failures of RFC 6750 section 3.1. Each carries a description from a fixed list, never a token or
// a library's message, so the challenge header and the problem body can show it as is.

/** Why a token is refused, mapped to its `error_description`. */
export const INVALID_TOKEN_DESCRIPTIONS = {
  malformed: 'The access token is malformed',
  signature: 'The access token signature is invalid',
  algorithm: 'The access token algorithm is not accepted',
  expired: 'The access token has expired',
  not_yet_valid: 'The access token is not valid yet',
  issuer: 'The access token issuer is not accepted',
  audience: 'The access token audience is not accepted',
  missing_claim: 'The access token lacks a required claim',
  unusable_claim: 'The access token names its subject, client or id with a character this service cannot store',
  unknown_key: 'The access token signing key is unknown',
  revoked: 'The access token has been revoked',
  inactive: 'The access token is not active',
  invalid: 'The access token is invalid'
} as const

export type InvalidTokenReason = keyof typeof INVALID_TOKEN_DESCRIPTIONS

/** RFC 6750 `invalid_token`: answered 401. */
export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError'
  readonly reason: InvalidTokenReason
  constructor (reason: InvalidTokenReason) {
    super(INVALID_TOKEN_DESCRIPTIONS[reason])
    this.reason = reason
  }
}

/** RFC 6750 `invalid_request`: answered 400. The message is written by us and safe to show. */
export class InvalidAuthRequestError extends Error {
  override name = 'InvalidAuthRequestError'
}

/** The token could not be checked because a dependency (JWKS, introspection) failed: answered 503. */
export class TokenCheckUnavailableError extends Error {
  override name = 'TokenCheckUnavailableError'
}
