import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError } from '../config.ts'

export const DEV_SECRET_FILE = 'dev-auth-secret'

// Our own keys are 43 characters; anything much shorter was edited or truncated.
const MIN_SECRET_LENGTH = 32

function checked (secret: string, path: string): string {
  if (secret.length < MIN_SECRET_LENGTH) throw new ConfigError(`The development key ${path} is damaged (too short): delete it and start again to create a new one`)
  return secret
}

export interface DevSecret {
  secret: string
  path: string
  created: boolean
}

/** The development HS256 secret under the data directory, created (owner-only) on first use. */
export function loadOrCreateDevSecret (dataDir: string): DevSecret {
  const path = resolve(join(dataDir, DEV_SECRET_FILE))
  try {
    const secret = readFileSync(path, 'utf8').trim()
    return { secret: checked(secret, path), path, created: false }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  try {
    // 'wx' fails when another process created it first; then theirs is the one to use.
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' })
    return { secret, path, created: true }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return { secret: checked(readFileSync(path, 'utf8').trim(), path), path, created: false }
  }
}
