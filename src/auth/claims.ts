import { InvalidTokenError } from './errors.ts'

export interface ClaimRules {
  /** The exact `iss` required, when set. */
  issuer?: string
  /** Accepted `aud` values; the token must name at least one, when set. */
  audiences?: readonly string[]
}

// Claims that name who acts or which token: stored (as a candidato action's actor, an idempotency
// key's owner) and looked up. PostgreSQL cannot store a NUL character in text.
const IDENTITY_CLAIMS = ['sub', 'client_id', 'azp', 'jti'] as const

// Times in seconds since the epoch. `1e400` reads as Infinity and would make a token last for ever.
const TIME_CLAIMS = ['exp', 'nbf'] as const

const isNamed = (value: unknown): boolean => typeof value === 'string' && value !== ''

/** Checks the claims every token must satisfy whatever verified it (JWT signature or introspection). */
export function checkClaims (claims: Record<string, unknown>, rules: ClaimRules): void {
  if (rules.issuer !== undefined && claims.iss !== rules.issuer) throw new InvalidTokenError('issuer')
  if (claims.iss !== undefined && typeof claims.iss !== 'string') throw new InvalidTokenError('invalid')
  for (const name of TIME_CLAIMS) {
    if (claims[name] !== undefined && !Number.isSafeInteger(claims[name])) throw new InvalidTokenError('invalid')
  }
  // Someone must act: a token naming neither a subject nor a client would be nobody, shared by all.
  if (!isNamed(claims.sub) && !isNamed(claims.client_id) && !isNamed(claims.azp)) throw new InvalidTokenError('missing_claim')
  for (const name of IDENTITY_CLAIMS) {
    const value = claims[name]
    if (typeof value === 'string' && value.includes('\u0000')) throw new InvalidTokenError('unusable_claim')
  }
  if (rules.audiences !== undefined) {
    const aud = claims.aud
    const offered = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []
    if (!offered.some(value => typeof value === 'string' && rules.audiences!.includes(value))) throw new InvalidTokenError('audience')
  }
}

/** The AUDIENCE setting as a list. */
export function audienceList (setting: string | undefined): string[] | undefined {
  return setting?.split(',').map(part => part.trim()).filter(part => part !== '')
}
