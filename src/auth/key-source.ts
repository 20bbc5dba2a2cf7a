import { createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Algorithm } from 'fast-jwt'
import { ConfigError, type Config } from '../config.ts'
import { loadOrCreateDevSecret } from './dev-key.ts'
import { algorithmsForPublicKey } from './key-algorithms.ts'

export type KeySource =
  | { kind: 'secret', key: string, algorithms: Algorithm[] }
  | { kind: 'public-key', key: string, algorithms: Algorithm[] }
  | { kind: 'jwks', url: string }
  | { kind: 'development', key: string, algorithms: Algorithm[], path: string, created: boolean }
  /** Only introspection: every token is checked with the authorization server. */
  | { kind: 'none' }

const JWT_KEY_SETTINGS = ['AUTH_JWT_SECRET', 'AUTH_PUBLIC_KEY_FILE', 'AUTH_JWKS_URL'] as const

function readPublicKey (path: string): { key: string, algorithms: Algorithm[] } {
  let pem: string
  try {
    pem = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`AUTH_PUBLIC_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): expected a path to a PEM public key`)
  }
  // createPublicKey would quietly derive a public key from a private one; a private key has no place here.
  if (pem.includes('PRIVATE KEY')) throw new ConfigError('AUTH_PUBLIC_KEY_FILE holds a private key: give the service only the public key')
  let algorithms: Algorithm[]
  try {
    algorithms = algorithmsForPublicKey(createPublicKey(pem))
  } catch {
    throw new ConfigError('AUTH_PUBLIC_KEY_FILE is not a PEM public key or certificate')
  }
  if (algorithms.length === 0) throw new ConfigError('AUTH_PUBLIC_KEY_FILE holds a key type that cannot verify tokens: expected RSA, RSA-PSS, EC P-256/384/521 or Ed25519')
  return { key: pem, algorithms }
}

/**
 * Where verification keys come from. With no key setting the service signs its own development tokens,
 * which production refuses.
 */
export function resolveKeySource (config: Config): KeySource {
  const named = JWT_KEY_SETTINGS.filter(name => config[name] !== undefined)
  if (named.length > 1) throw new ConfigError(`Set only one of ${named.join(', ')}: each names a different way to verify tokens`)
  if (config.AUTH_JWT_SECRET !== undefined) return { kind: 'secret', key: config.AUTH_JWT_SECRET, algorithms: ['HS256'] }
  if (config.AUTH_PUBLIC_KEY_FILE !== undefined) return { kind: 'public-key', ...readPublicKey(config.AUTH_PUBLIC_KEY_FILE) }
  if (config.AUTH_JWKS_URL !== undefined) return { kind: 'jwks', url: config.AUTH_JWKS_URL }
  if (config.AUTH_INTROSPECTION_URL !== undefined) return { kind: 'none' }
  if (config.NODE_ENV === 'production') {
    throw new ConfigError('No token verification key is configured: set AUTH_JWT_SECRET, AUTH_PUBLIC_KEY_FILE, AUTH_JWKS_URL or AUTH_INTROSPECTION_URL (NODE_ENV=production never uses a development key).')
  }
  const dev = loadOrCreateDevSecret(config.DATA_DIR)
  return { kind: 'development', key: dev.secret, algorithms: ['HS256'], path: dev.path, created: dev.created }
}
