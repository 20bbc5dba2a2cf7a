import { checkClaims, type ClaimRules } from './claims.js'
import { InvalidTokenError } from './errors.js'
import type { JwtClaims } from './jwt-verifier.js'
import { principalOf, type Principal } from './principal.js'
import { createVerifiedTokens } from './verified-tokens.js'

export interface TokenVerifierParts {
  /** Verifies a JWT (signature, algorithm, time). */
  verifyJwt: (token: string) => Promise<JwtClaims>
  /** Checks a token that is not a JWT with the authorization server (RFC 7662), when configured. */
  introspect?: (token: string) => Promise<JwtClaims>
  /** Send every token to introspection, JWT-shaped or not (no local key is configured). */
  introspectEverything?: boolean
  /** Issuer and audience every token must match. */
  rules: ClaimRules
  /** True when the token's `jti` is on the deny-list. */
  isRevoked?: (jti: string) => Promise<boolean>
  /** How many verified JWTs to remember (0: none), and for how long at most. */
  remember?: { maxEntries: number, maxAgeMs: number }
}

// Three base64url segments separated by dots (RFC 7515 compact serialization).
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

export type TokenVerifier = (token: string) => Promise<Principal>

/** Turns a token into a principal, or throws InvalidTokenError / TokenCheckUnavailableError. */
export function createTokenVerifier (parts: TokenVerifierParts): TokenVerifier {
  // Only JWTs verified locally are remembered: an introspected token's lifetime is the
  // introspection cache's to decide, so the authorization server's revocations reach us in time.
  const verified = parts.remember !== undefined && parts.remember.maxEntries > 0 ? createVerifiedTokens(parts.remember) : undefined

  async function verifyFully (token: string): Promise<Principal> {
    let claims: JwtClaims
    let local = false
    if (parts.introspect !== undefined && (parts.introspectEverything === true || !COMPACT_JWS.test(token))) claims = await parts.introspect(token)
    else if (COMPACT_JWS.test(token)) {
      claims = await parts.verifyJwt(token)
      local = true
    } else throw new InvalidTokenError('malformed')
    checkClaims(claims, parts.rules)
    const principal = principalOf(claims)
    if (local) verified?.remember(token, principal)
    return principal
  }

  return async token => {
    const principal = verified?.get(token) ?? await verifyFully(token)
    if (principal.jti !== undefined && parts.isRevoked !== undefined && await parts.isRevoked(principal.jti)) {
      throw new InvalidTokenError('revoked')
    }
    return principal
  }
}
