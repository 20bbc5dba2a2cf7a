import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const DEV_SECRET_FILE = 'dev-auth-secret'

export interface DevSecret {
  secret: string
  path: string
  created: boolean
}

/** The development HS256 secret under the data directory, created (owner-only) on first use. */
export function loadOrCreateDevSecret (dataDir: string): DevSecret {
  const path = resolve(join(dataDir, DEV_SECRET_FILE))
  try {
    return { secret: readFileSync(path, 'utf8').trim(), path, created: false }
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
    return { secret: readFileSync(path, 'utf8').trim(), path, created: false }
  }
}

/** The development secret when it exists, without creating it. */
export function readDevSecret (dataDir: string): string | undefined {
  try {
    return readFileSync(resolve(join(dataDir, DEV_SECRET_FILE)), 'utf8').trim()
  } catch {
    return undefined
  }
}
