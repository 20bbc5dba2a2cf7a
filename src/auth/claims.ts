import { InvalidTokenError } from './errors.js'

export interface ClaimRules {
  /** The exact `iss` required, when set. */
  issuer?: string
  /** Accepted `aud` values; the token must name at least one, when set. */
  audiences?: readonly string[]
}

/** Checks the claims every token must satisfy whatever verified it (JWT signature or introspection). */
export function checkClaims (claims: Record<string, unknown>, rules: ClaimRules): void {
  if (rules.issuer !== undefined && claims.iss !== rules.issuer) throw new InvalidTokenError('issuer')
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
