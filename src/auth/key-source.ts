import type { Algorithm } from 'fast-jwt'
import { ConfigError, type Config } from '../config.js'
import { loadOrCreateDevSecret } from './dev-key.js'

export type KeySource =
  | { kind: 'secret', key: string, algorithms: Algorithm[] }
  | { kind: 'development', key: string, algorithms: Algorithm[], path: string, created: boolean }

/** True when any setting names how tokens are verified. */
export function hasKeySetting (config: Config): boolean {
  return config.AUTH_JWT_SECRET !== undefined
}

/**
 * Where verification keys come from. With no key setting the service signs its own development tokens,
 * which production refuses.
 */
export function resolveKeySource (config: Config): KeySource {
  if (config.AUTH_JWT_SECRET !== undefined) return { kind: 'secret', key: config.AUTH_JWT_SECRET, algorithms: ['HS256'] }
  if (config.NODE_ENV === 'production') {
    throw new ConfigError('No token verification key is configured: set AUTH_JWT_SECRET, AUTH_PUBLIC_KEY_FILE, AUTH_JWKS_URL or AUTH_INTROSPECTION_URL (NODE_ENV=production never uses a development key).')
  }
  const dev = loadOrCreateDevSecret(config.DATA_DIR)
  return { kind: 'development', key: dev.secret, algorithms: ['HS256'], path: dev.path, created: dev.created }
}
