import { KeyObject } from 'node:crypto'
import { createLocalJWKSet, createRemoteJWKSet, errors, type JWSHeaderParameters } from 'jose'
import { InvalidTokenError, TokenCheckUnavailableError } from './errors.ts'

type CryptoKey = Awaited<ReturnType<ReturnType<typeof createRemoteJWKSet>>>

export interface JwksOptions {
  /** The JWKS URL, from settings only: never from a token's `jku`, `x5u` or issuer. */
  url: string
  /** Minimum time between fetches that an unknown `kid` may cause. */
  cooldownMs: number
  /** Age after which the set is fetched again before use. */
  maxAgeMs: number
  /** Time limit of one fetch. */
  timeoutMs?: number
  /** Told about fetch failures (the cause only, never the URL's secrets or a token). */
  onFetchError?: (error: Error) => void
}

export interface JwksKeyFinder {
  /** The PEM key for a token's header, after the `alg` is checked against that key's type. */
  keyFor: (header: { kid?: unknown, alg?: unknown }) => Promise<string>
}

// After a failed fetch, requests wait this long before trying again rather than each fetching.
const RETRY_AFTER_FAILURE_MS = 1_000

// What jose throws when the set holds no key for the header; anything else is a failed fetch.
const NOT_IN_SET = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_JWK_INVALID'])

/**
 * Keys from a JWKS URL through jose's remote key set: cached, fetched once for concurrent requests,
 * refreshed past the max age, and refetched for an unknown `kid` at most once per cool-down. Kept here:
 * the last set serves while the key server is down, and a failure is retried after a pause.
 */
export function createJwksKeyFinder (options: JwksOptions): JwksKeyFinder {
  const remote = createRemoteJWKSet(new URL(options.url), {
    cooldownDuration: options.cooldownMs,
    cacheMaxAge: options.maxAgeMs,
    timeoutDuration: options.timeoutMs ?? 3_000
  })
  let failedAt = -Infinity
  // fast-jwt takes PEM text; jose keeps one CryptoKey per JWK and algorithm, so each is exported once.
  const pems = new WeakMap<CryptoKey, string>()

  function fromLastSet (header: JWSHeaderParameters): Promise<CryptoKey> {
    const last = remote.jwks()
    // A stale set is better than none while the key server is away.
    if (last === undefined) throw new TokenCheckUnavailableError('the signing keys could not be fetched')
    return createLocalJWKSet(last)(header)
  }

  async function find (header: JWSHeaderParameters): Promise<CryptoKey> {
    if (Date.now() - failedAt < RETRY_AFTER_FAILURE_MS) return await fromLastSet(header)
    try {
      return await remote(header)
    } catch (error) {
      if (NOT_IN_SET.has((error as errors.JOSEError).code)) throw error
      // Requests that shared the failed fetch tell of it once.
      if (Date.now() - failedAt >= RETRY_AFTER_FAILURE_MS) options.onFetchError?.(error as Error)
      failedAt = Date.now()
      return await fromLastSet(header)
    }
  }

  return {
    async keyFor (header) {
      let key: CryptoKey
      try {
        key = await find(header as JWSHeaderParameters)
      } catch (error) {
        if (!(error instanceof errors.JOSEError)) throw error
        // A kid the set holds, asked for with another algorithm than its key's, is an algorithm refused.
        const kidKnown = typeof header.kid === 'string' && remote.jwks()?.keys.some(jwk => jwk.kid === header.kid) === true
        throw new InvalidTokenError(error.code === 'ERR_JOSE_NOT_SUPPORTED' || kidKnown ? 'algorithm' : 'unknown_key')
      }
      let pem = pems.get(key)
      if (pem === undefined) {
        pem = KeyObject.from(key).export({ type: 'spki', format: 'pem' }).toString()
        pems.set(key, pem)
      }
      return pem
    }
  }
}
