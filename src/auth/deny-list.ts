/** Revoked token ids (`jti`), each kept until the token would have expired anyway. */
export interface DenyList {
  readonly kind: 'redis' | 'memory'
  isRevoked: (jti: string) => Promise<boolean>
  /** Revokes a token id until `expiresAt` (seconds since the epoch). */
  revoke: (jti: string, expiresAt: number) => Promise<void>
}

/** Token ids with their expiry (seconds since the epoch), held in this process. */
export class RevokedIds {
  readonly #until = new Map<string, number>()

  get size (): number {
    return this.#until.size
  }

  has (jti: string, now = Date.now() / 1000): boolean {
    const until = this.#until.get(jti)
    if (until === undefined) return false
    if (until > now) return true
    this.#until.delete(jti)
    return false
  }

  add (jti: string, expiresAt: number): void {
    this.#until.set(jti, Math.max(expiresAt, this.#until.get(jti) ?? 0))
  }

  /** Forgets what has expired, so the map stays as small as the set of live revoked tokens. */
  forgetExpired (now = Date.now() / 1000): void {
    for (const [jti, until] of this.#until) if (until <= now) this.#until.delete(jti)
  }
}

/** One process only: right for a single instance and for development. */
export function createMemoryDenyList (): DenyList {
  const revoked = new RevokedIds()
  return {
    kind: 'memory',
    async isRevoked (jti) {
      return revoked.has(jti)
    },
    async revoke (jti, expiresAt) {
      revoked.forgetExpired()
      revoked.add(jti, expiresAt)
    }
  }
}
