import type { KeyObject } from 'node:crypto'
import type { Algorithm } from 'fast-jwt'

// Each key type verifies only its own family, so `none`, HS256-with-a-public-key and cross-family
// substitutions are refused before any signature is checked.
const RSA: Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']
const RSA_PSS: Algorithm[] = ['PS256', 'PS384', 'PS512']
const EC_BY_CURVE: Record<string, Algorithm> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512', prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }

/** The algorithms a public key may verify, or an empty list for a key type we do not accept. */
export function algorithmsForPublicKey (key: KeyObject): Algorithm[] {
  switch (key.asymmetricKeyType) {
    case 'rsa': return RSA
    case 'rsa-pss': return RSA_PSS
    case 'ec': {
      const alg = EC_BY_CURVE[key.asymmetricKeyDetails?.namedCurve ?? '']
      return alg === undefined ? [] : [alg]
    }
    case 'ed25519': case 'ed448': return ['EdDSA']
    default: return []
  }
}
