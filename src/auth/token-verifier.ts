import { checkClaims, type ClaimRules } from './claims.ts'
import { InvalidTokenError } from './errors.ts'
import type { JwtClaims } from './jwt-verifier.ts'
import { principalOf, type Principal } from './principal.ts'
import { createExpiringCache } from './expiring-cache.ts'

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

/**
 * Until when a verified JWT's principal may be reused: its `exp`, and `maxAgeMs` at most (keys may
 * rotate meanwhile). A token without `exp`, or not valid yet (`nbf`), is not reused.
 */
function reusableUntil (principal: Principal, now: number, maxAgeMs: number): number | undefined {
  const nbf = principal.claims.nbf
  if (principal.expiresAt === undefined || (typeof nbf === 'number' && nbf * 1000 > now)) return undefined
  return Math.min(principal.expiresAt * 1000, now + maxAgeMs)
}

/** Turns a token into a principal, or throws InvalidTokenError / TokenCheckUnavailableError. */
export function createTokenVerifier (parts: TokenVerifierParts): TokenVerifier {
  // Verified JWTs are remembered by the token itself: a client sends the same token on every
  // request, and a string key costs a map lookup where the JWT library's cache hashes the token with
  // SHA-2 each time. Revocation is not remembered: it is checked on every request. Introspected
  // tokens are not remembered here: their lifetime is the introspection cache's to decide, so the
  // authorization server's revocations reach us in time.
  const { maxEntries = 0, maxAgeMs = 0 } = parts.remember ?? {}
  const verified = maxEntries > 0 ? createExpiringCache<Principal>(maxEntries) : undefined

  function principalFrom (claims: JwtClaims): Principal {
    checkClaims(claims, parts.rules)
    return principalOf(claims, parts.rules.issuer)
  }

  async function verifyFully (token: string): Promise<Principal> {
    if (parts.introspect !== undefined && (parts.introspectEverything === true || !COMPACT_JWS.test(token))) {
      return principalFrom(await parts.introspect(token))
    }
    if (!COMPACT_JWS.test(token)) throw new InvalidTokenError('malformed')
    const principal = principalFrom(await parts.verifyJwt(token))
    if (verified !== undefined) {
      const now = Date.now()
      const until = reusableUntil(principal, now, maxAgeMs)
      if (until !== undefined) verified.set(token, principal, until, now)
    }
    return principal
  }

  return async token => {
    const principal = verified?.get(token)?.value ?? await verifyFully(token)
    if (principal.jti !== undefined && parts.isRevoked !== undefined && await parts.isRevoked(principal.jti)) {
      throw new InvalidTokenError('revoked')
    }
    return principal
  }
}
