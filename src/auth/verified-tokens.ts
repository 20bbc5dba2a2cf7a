import type { Principal } from './principal.js'

export interface VerifiedTokensOptions {
  /** Most tokens remembered; the oldest entry makes room for a new one. */
  maxEntries: number
  /** Longest a token is trusted without verifying it again, in ms (keys may rotate meanwhile). */
  maxAgeMs: number
}

interface Entry { principal: Principal, notAfterMs: number }

/**
 * Principals of tokens whose signature and claims were checked, keyed by the token itself, until
 * the token's `exp` or `maxAgeMs`, whichever comes first. A client sends the same token on every
 * request, and a string key costs a map lookup where the JWT library's own cache hashes the token
 * with SHA-2 on every request. Revocation is not remembered here: it is checked on every request.
 */
export function createVerifiedTokens (options: VerifiedTokensOptions) {
  const entries = new Map<string, Entry>()

  return {
    get (token: string): Principal | undefined {
      const entry = entries.get(token)
      if (entry === undefined) return undefined
      if (Date.now() < entry.notAfterMs) return entry.principal
      entries.delete(token)
      return undefined
    },
    /** Remembers a verified token; one that is not yet valid (`nbf`) or has no `exp` is not kept. */
    remember (token: string, principal: Principal): void {
      const now = Date.now()
      const nbf = principal.claims.nbf
      if (principal.expiresAt === undefined || (typeof nbf === 'number' && nbf * 1000 > now)) return
      const notAfterMs = Math.min(principal.expiresAt * 1000, now + options.maxAgeMs)
      if (notAfterMs <= now) return
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value as string)
      entries.set(token, { principal, notAfterMs })
    }
  }
}
