import type { Redis } from 'ioredis'
import { TokenCheckUnavailableError } from './errors.js'

/** Revoked token ids (`jti`), each kept until the token would have expired anyway. */
export interface DenyList {
  readonly kind: 'redis' | 'memory'
  isRevoked: (jti: string) => Promise<boolean>
  /** Revokes a token id until `expiresAt` (seconds since the epoch). */
  revoke: (jti: string, expiresAt: number) => Promise<void>
}

const KEY = (jti: string) => `revoked-jti:${jti}`
const USABLE_STATES = new Set(['ready', 'wait', 'connecting', 'connect'])

/** Shared by every instance through Redis. When Redis cannot answer, tokens are not trusted (503). */
export function createRedisDenyList (redis: Redis): DenyList {
  return {
    kind: 'redis',
    async isRevoked (jti) {
      // A connection that is down answers at once instead of holding every request for a retry; one
      // still being opened (the first commands after start) is worth its short connect timeout.
      if (!USABLE_STATES.has(redis.status)) throw new TokenCheckUnavailableError('the revocation list is unreachable')
      try {
        return await redis.exists(KEY(jti)) === 1
      } catch {
        throw new TokenCheckUnavailableError('the revocation list is unreachable')
      }
    },
    async revoke (jti, expiresAt) {
      const seconds = Math.max(1, Math.ceil(expiresAt - Date.now() / 1000))
      await redis.set(KEY(jti), '1', 'EX', seconds)
    }
  }
}

/** One process only: right for a single instance and for development. */
export function createMemoryDenyList (): DenyList {
  const revoked = new Map<string, number>()
  return {
    kind: 'memory',
    async isRevoked (jti) {
      const until = revoked.get(jti)
      if (until === undefined) return false
      if (until * 1000 > Date.now()) return true
      revoked.delete(jti)
      return false
    },
    async revoke (jti, expiresAt) {
      // Forget what has expired, so the map stays as small as the set of live revoked tokens.
      const now = Date.now() / 1000
      for (const [id, until] of revoked) if (until <= now) revoked.delete(id)
      revoked.set(jti, expiresAt)
    }
  }
}
