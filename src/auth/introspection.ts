import { createHash } from 'node:crypto'
import { InvalidTokenError, TokenCheckUnavailableError } from './errors.ts'
import { createExpiringCache } from './expiring-cache.ts'
import type { JwtClaims } from './jwt-verifier.ts'

export interface IntrospectionOptions {
  /** The RFC 7662 endpoint, from settings. */
  url: string
  /** Client credentials this service authenticates with (HTTP Basic, RFC 7662 section 2.1). */
  clientId?: string
  clientSecret?: string
  /** Longest time an answer is reused; never past the token's `exp`. */
  cacheMs: number
  /** Entries kept at most. */
  maxEntries?: number
  timeoutMs?: number
  onError?: (error: Error) => void
}

// A refused token is asked about again after this long at most, so a reactivated one recovers soon
// while a flood of the same bad token does not reach the endpoint.
const NEGATIVE_CACHE_MS = 5_000

function basicCredentials (id: string, secret: string): string {
  // RFC 6749 section 2.3.1: each part is form-urlencoded before base64.
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+')
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`
}

/** Checks opaque tokens with the authorization server, with a small bounded cache keyed by hash. */
export function createIntrospector (options: IntrospectionOptions): (token: string) => Promise<JwtClaims> {
  // An inactive token is remembered as undefined claims.
  const cache = createExpiringCache<JwtClaims | undefined>(options.maxEntries ?? 10_000)
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
  if (options.clientId !== undefined) headers.authorization = basicCredentials(options.clientId, options.clientSecret ?? '')

  async function ask (token: string): Promise<Record<string, unknown>> {
    let response: Response
    try {
      response = await fetch(options.url, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs ?? 3_000)
      })
    } catch (error) {
      options.onError?.(error as Error)
      throw new TokenCheckUnavailableError('the introspection endpoint is unreachable')
    }
    if (!response.ok) {
      options.onError?.(new Error(`the introspection endpoint answered ${response.status}`))
      throw new TokenCheckUnavailableError('the introspection endpoint failed')
    }
    const body = await response.json().catch(() => undefined) as unknown
    if (body === null || typeof body !== 'object') throw new TokenCheckUnavailableError('the introspection answer is not JSON')
    return body as Record<string, unknown>
  }

  return async token => {
    const key = createHash('sha256').update(token).digest('base64url')
    const now = Date.now()
    const cached = cache.get(key, now)
    if (cached !== undefined) {
      if (cached.value === undefined) throw new InvalidTokenError('inactive')
      return cached.value
    }

    const answer = await ask(token)
    if (answer.active !== true) {
      cache.set(key, undefined, now + Math.min(NEGATIVE_CACHE_MS, options.cacheMs))
      throw new InvalidTokenError('inactive')
    }
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : undefined
    if (exp !== undefined && exp <= now) throw new InvalidTokenError('expired')
    const { active: _active, ...claims } = answer
    cache.set(key, claims, Math.min(now + options.cacheMs, exp ?? Infinity))
    return claims
  }
}
