import { createVerifier, TokenError, type Algorithm, type KeyFetcher } from 'fast-jwt'
import { InvalidTokenError, TokenCheckUnavailableError, type InvalidTokenReason } from './errors.ts'

export type JwtClaims = Record<string, unknown>

export interface JwtVerifierOptions {
  /** A secret or PEM public key, or a function finding the key for a decoded token (JWKS). */
  key: string | Buffer | KeyFetcher
  /** The only algorithms accepted: pinned to the key type so `none` and HS/RS confusion cannot pass. */
  algorithms: Algorithm[]
  /** Seconds of clock skew allowed on `exp` and `nbf`. */
  clockTolerance: number
  /** Verified tokens kept in memory, each no longer than its `exp`. */
  cacheSize?: number
}

const REASONS: Partial<Record<string, InvalidTokenReason>> = {
  [TokenError.codes.malformed]: 'malformed',
  [TokenError.codes.invalidType]: 'malformed',
  [TokenError.codes.invalidPayload]: 'malformed',
  [TokenError.codes.invalidCritHeader]: 'malformed',
  [TokenError.codes.invalidSignature]: 'signature',
  [TokenError.codes.invalidAlgorithm]: 'algorithm',
  // An unsigned token (`alg: none`) has no signature: refused as an algorithm we do not accept.
  [TokenError.codes.missingSignature]: 'algorithm',
  [TokenError.codes.invalidKey]: 'algorithm',
  [TokenError.codes.expired]: 'expired',
  [TokenError.codes.inactive]: 'not_yet_valid',
  [TokenError.codes.missingRequiredClaim]: 'missing_claim',
  [TokenError.codes.invalidClaimType]: 'invalid',
  [TokenError.codes.invalidClaimValue]: 'invalid'
}

// A failed token may be retried with a fixed clock or key soon; remember the failure only briefly.
const ERROR_CACHE_MS = 2_000

/** Maps whatever verification threw to one of our fixed causes (never the library's message). */
export function toVerificationError (error: unknown): Error {
  if (error instanceof InvalidTokenError || error instanceof TokenCheckUnavailableError) return error
  if (error instanceof TokenError) {
    if (error.code === TokenError.codes.keyFetchingError) {
      const cause = (error as TokenError & { originalError?: unknown }).originalError
      if (cause instanceof InvalidTokenError || cause instanceof TokenCheckUnavailableError) return cause
      return new TokenCheckUnavailableError('the signing keys could not be fetched')
    }
    return new InvalidTokenError(REASONS[error.code] ?? 'invalid')
  }
  return new InvalidTokenError('invalid')
}

/** A JWT verifier over fast-jwt: signature, algorithm, `exp` (required) and `nbf`, with a cache. */
export function createJwtVerifier (options: JwtVerifierOptions): (token: string) => Promise<JwtClaims> {
  const common = {
    algorithms: options.algorithms,
    clockTolerance: options.clockTolerance * 1000,
    requiredClaims: ['exp'],
    cache: options.cacheSize ?? 10_000,
    errorCacheTTL: (error: TokenError) => (error.code === TokenError.codes.keyFetchingError ? -1 : ERROR_CACHE_MS)
  }
  if (typeof options.key === 'function') {
    const verify = createVerifier({ ...common, key: options.key })
    return async token => {
      try {
        return await verify(token) as JwtClaims
      } catch (error) {
        throw toVerificationError(error)
      }
    }
  }
  const verify = createVerifier({ ...common, key: options.key })
  return async token => {
    try {
      return verify(token) as JwtClaims
    } catch (error) {
      throw toVerificationError(error)
    }
  }
}
