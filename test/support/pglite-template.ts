import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createDatabase } from '../../src/storage/database.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import { scratchDir } from './scratch-dir.ts'

// Creating an embedded database costs seconds (initdb); copying a ready one costs milliseconds.
// The templates are made once and shared by every test process of a run.
const TEMPLATES = resolve(import.meta.dirname, '../../.tap')
const TEMPLATE = join(TEMPLATES, 'pglite-template')
const MIGRATIONS = resolve(import.meta.dirname, '../../src/storage/migrations')

/** `path`, made by `make` in a staging directory the first time; the first of several processes to finish wins. */
async function ensureOnce (path: string, make: (staging: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path
  // Staged beside the templates: a rename cannot move a directory to another filesystem.
  mkdirSync(TEMPLATES, { recursive: true })
  const staging = mkdtempSync(join(TEMPLATES, 'staging-'))
  try {
    await make(staging)
    renameSync(staging, path)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another test process made it first; any other failure is this one's.
    if (!existsSync(path)) throw error
  }
  return path
}

async function ensureTemplate (): Promise<string> {
  return await ensureOnce(TEMPLATE, async staging => {
    // Imported here, not at the top: a top-level import would cost every test process, even those that find the template made.
    const { PGlite } = await import('@electric-sql/pglite')
    await (await PGlite.create(join(staging, 'pglite'))).close()
  })
}

/** The templates a test run uses, made if they are not yet: the fresh one and the migrated one. */
export async function currentTemplates (): Promise<string[]> {
  return [await ensureTemplate(), await migratedTemplate()]
}

/**
 * A data directory whose database has every migration applied, named by the migrations' sources, so
 * a changed migration makes a new one.
 */
export async function migratedTemplate (): Promise<string> {
  const sources = createHash('sha256')
  for (const file of readdirSync(MIGRATIONS).sort()) sources.update(file).update(readFileSync(join(MIGRATIONS, file)))
  return await ensureOnce(join(TEMPLATES, `pglite-template-migrated-${sources.digest('hex').slice(0, 12)}`), async staging => {
    cpSync(await ensureTemplate(), staging, { recursive: true })
    const database = createDatabase({ dataDir: staging })
    try {
      await database.open()
      await migrateToLatest(database.db)
    } finally {
      await database.close()
    }
  })
}

/** A new directory under `parent`, removed when the test ends. */
function temporaryDir (t: { teardown: (fn: () => unknown) => void }, parent: string): string {
  const dir = mkdtempSync(join(parent, 'recrutamento-test-'))
  // A service process killed by its test leaves its embedded database process to close on its own: it
  // may still write here for a moment, so the removal retries (ENOTEMPTY) instead of racing it.
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 }))
  return dir
}

/** A DATA_DIR holding a fresh embedded database, under `parent` (the scratch directory by default), removed when the test ends. */
export async function freshDataDir (t: { teardown: (fn: () => unknown) => void }, parent = scratchDir): Promise<string> {
  const template = await ensureTemplate()
  const dir = temporaryDir(t, parent)
  cpSync(template, dir, { recursive: true })
  return dir
}

/** An empty DATA_DIR, removed when the test ends: for an app whose database is elsewhere. */
export function emptyDataDir (t: { teardown: (fn: () => unknown) => void }): string {
  return temporaryDir(t, scratchDir)
}
