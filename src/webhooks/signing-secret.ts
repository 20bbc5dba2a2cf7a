// Signing secrets in the Standard Webhooks form: `whsec_` and the key in base64.
import { randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'
// Standard Webhooks asks for keys of 24 to 64 bytes.
const KEY_BYTES = 32

export function newSigningSecret (): string {
  return PREFIX + randomBytes(KEY_BYTES).toString('base64')
}

export function signingKey (secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
}
