import { createPublicKey, type JsonWebKey } from 'node:crypto'
import type { Algorithm } from 'fast-jwt'
import { InvalidTokenError, TokenCheckUnavailableError } from './errors.js'
import { algorithmsForPublicKey, narrowToJwkAlg } from './key-algorithms.js'

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

interface VerificationKey {
  pem: string
  algorithms: Algorithm[]
}

interface KeySet {
  keys: Map<string, VerificationKey>
  fetchedAt: number
}

export interface JwksKeyFinder {
  /** The PEM key for a token's header, after the `alg` is checked against that key's type. */
  keyFor: (header: { kid?: unknown, alg?: unknown }) => Promise<string>
  /** How many times the set was fetched (for the metrics and the tests). */
  readonly fetchCount: number
}

function parseKeySet (body: unknown): Map<string, VerificationKey> {
  const keys = new Map<string, VerificationKey>()
  const list = (body as { keys?: unknown })?.keys
  if (!Array.isArray(list)) throw new Error('the JWKS document has no keys array')
  list.forEach((jwk: JsonWebKey & { kid?: unknown, use?: unknown, alg?: unknown }, index) => {
    // Only public signing keys: symmetric ('oct') and encryption keys are never used to verify.
    if (jwk === null || typeof jwk !== 'object' || jwk.kty === 'oct' || (jwk.use !== undefined && jwk.use !== 'sig')) return
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' })
      const algorithms = narrowToJwkAlg(algorithmsForPublicKey(key), jwk.alg)
      if (algorithms.length === 0) return
      const kid = typeof jwk.kid === 'string' ? jwk.kid : `#${index}`
      keys.set(kid, { pem: key.export({ type: 'spki', format: 'pem' }).toString(), algorithms })
    } catch {
      // A key we cannot read is skipped; the others still work.
    }
  })
  return keys
}

/**
 * Keys from a JWKS URL: cached, fetched by one request at a time (single flight), refreshed when old,
 * and refetched for an unknown `kid` at most once per cool-down, so a storm of made-up kids costs
 * the key server nothing.
 */
export function createJwksKeyFinder (options: JwksOptions): JwksKeyFinder {
  let current: KeySet | undefined
  let inFlight: Promise<KeySet> | undefined
  let lastAttempt = -Infinity
  let fetchCount = 0

  async function fetchKeySet (): Promise<KeySet> {
    fetchCount++
    lastAttempt = Date.now()
    const response = await fetch(options.url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 3_000)
    })
    if (!response.ok) throw new Error(`the JWKS endpoint answered ${response.status}`)
    return { keys: parseKeySet(await response.json()), fetchedAt: Date.now() }
  }

  function refresh (): Promise<KeySet> {
    inFlight ??= fetchKeySet()
      .then(set => { current = set; return set })
      .catch((error: Error) => {
        options.onFetchError?.(error)
        // A stale set is better than none while the key server is away.
        if (current !== undefined) return current
        throw new TokenCheckUnavailableError('the signing keys could not be fetched')
      })
      .finally(() => { inFlight = undefined })
    return inFlight
  }

  function pick (set: KeySet, kid: unknown): VerificationKey | undefined {
    if (typeof kid === 'string') return set.keys.get(kid)
    // A token without kid is accepted only when the set leaves no doubt.
    return set.keys.size === 1 ? set.keys.values().next().value : undefined
  }

  // After a failed fetch, requests wait this long before trying again rather than each fetching.
  const RETRY_AFTER_FAILURE_MS = 1_000

  async function usableSet (): Promise<KeySet> {
    if (inFlight !== undefined) return inFlight
    const sinceAttempt = Date.now() - lastAttempt
    if (current === undefined) {
      if (sinceAttempt < RETRY_AFTER_FAILURE_MS) throw new TokenCheckUnavailableError('the signing keys could not be fetched')
      return refresh()
    }
    if (Date.now() - current.fetchedAt > options.maxAgeMs && sinceAttempt >= RETRY_AFTER_FAILURE_MS) return refresh()
    return current
  }

  return {
    get fetchCount () { return fetchCount },
    async keyFor (header) {
      let set = await usableSet()
      let key = pick(set, header.kid)
      if (key === undefined) {
        // A new kid may mean the keys were rotated: look once (or join the look under way),
        // then wait out the cool-down before an unknown kid may cause another fetch.
        if (inFlight !== undefined) set = await inFlight
        else if (Date.now() - lastAttempt >= options.cooldownMs) set = await refresh()
        key = pick(set, header.kid)
      }
      if (key === undefined) throw new InvalidTokenError('unknown_key')
      if (typeof header.alg !== 'string' || !key.algorithms.includes(header.alg as Algorithm)) throw new InvalidTokenError('algorithm')
      return key.pem
    }
  }
}
