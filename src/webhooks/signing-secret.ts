// Signing secrets in the Standard Webhooks form: `whsec_` and the key in base64.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

const PREFIX = 'whsec_'
// Standard Webhooks asks for keys of 24 to 64 bytes.
const KEY_BYTES = 32

export function newSigningSecret (): string {
  return PREFIX + randomBytes(KEY_BYTES).toString('base64')
}

/** The secret's key, made once for every delivery it signs: an HMAC keyed with raw bytes imports them anew each time. */
export function signingKey (secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64'))
}
