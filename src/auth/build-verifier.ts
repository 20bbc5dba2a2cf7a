import type { Algorithm } from 'fast-jwt'
import type { Config } from '../config.ts'
import { audienceList } from './claims.ts'
import type { DenyList } from './deny-list.ts'
import { createIntrospector } from './introspection.ts'
import { createJwksKeyFinder, type JwksKeyFinder } from './jwks.ts'
import { createJwtVerifier, type JwtClaims } from './jwt-verifier.ts'
import { resolveKeySource, type KeySource } from './key-source.ts'
import { InvalidTokenError } from './errors.ts'
import { createTokenVerifier, type TokenVerifier } from './token-verifier.ts'

// As many tokens as the JWT verifier caches, trusted for at most its cache time (fast-jwt's 10 minutes).
const VERIFIED_TOKENS_REMEMBERED = 10_000
const VERIFIED_TOKEN_MAX_AGE_MS = 600_000

const ASYMMETRIC: Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

export interface BuiltVerifier {
  verify: TokenVerifier
  keys: KeySource
  jwks?: JwksKeyFinder
}

export interface VerifierDependencies {
  denyList: DenyList
  /** Told when a key server or introspection endpoint fails (cause only). */
  onDependencyError: (what: 'jwks' | 'introspection', error: Error) => void
}

/** The token verifier the settings describe: JWT by secret, public key or JWKS, and/or introspection. */
export function buildTokenVerifier (config: Config, deps: VerifierDependencies): BuiltVerifier {
  const keys = resolveKeySource(config)
  const clockTolerance = config.AUTH_CLOCK_TOLERANCE
  let jwks: JwksKeyFinder | undefined
  let verifyJwt: (token: string) => Promise<JwtClaims>

  switch (keys.kind) {
    case 'jwks': {
      jwks = createJwksKeyFinder({
        url: keys.url,
        cooldownMs: config.AUTH_JWKS_COOLDOWN * 1000,
        maxAgeMs: config.AUTH_JWKS_MAX_AGE * 1000,
        onFetchError: error => deps.onDependencyError('jwks', error)
      })
      const finder = jwks
      // Each key then narrows this list to its own family (see jwks.ts).
      verifyJwt = createJwtVerifier({ key: async (decoded: { header: { kid?: unknown, alg?: unknown } }) => finder.keyFor(decoded.header), algorithms: ASYMMETRIC, clockTolerance })
      break
    }
    case 'none':
      verifyJwt = async () => { throw new InvalidTokenError('malformed') }
      break
    default:
      verifyJwt = createJwtVerifier({ key: keys.key, algorithms: keys.algorithms, clockTolerance })
  }

  const introspect = config.AUTH_INTROSPECTION_URL === undefined
    ? undefined
    : createIntrospector({
      url: config.AUTH_INTROSPECTION_URL,
      clientId: config.AUTH_INTROSPECTION_CLIENT_ID,
      clientSecret: config.AUTH_INTROSPECTION_CLIENT_SECRET,
      cacheMs: config.AUTH_INTROSPECTION_CACHE * 1000,
      onError: error => deps.onDependencyError('introspection', error)
    })

  const verify = createTokenVerifier({
    verifyJwt,
    introspect,
    // With introspection as the only source, JWT-shaped tokens are introspected too.
    introspectEverything: keys.kind === 'none',
    rules: { issuer: config.AUTH_ISSUER, audiences: audienceList(config.AUTH_AUDIENCE) },
    isRevoked: jti => deps.denyList.isRevoked(jti),
    remember: { maxEntries: VERIFIED_TOKENS_REMEMBERED, maxAgeMs: VERIFIED_TOKEN_MAX_AGE_MS }
  })
  return { verify, keys, jwks }
}
