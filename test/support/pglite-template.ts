import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'

// Creating an embedded database costs seconds (initdb); copying a ready one costs milliseconds.
// The template is made once and shared by every test process of a run.
const TEMPLATE = resolve(import.meta.dirname, '../../.tap/pglite-template')

async function ensureTemplate (): Promise<string> {
  if (existsSync(TEMPLATE)) return TEMPLATE
  const staging = mkdtempSync(join(tmpdir(), 'pglite-template-'))
  const database = await PGlite.create(join(staging, 'pglite'))
  await database.close()
  try {
    renameSync(staging, TEMPLATE)
  } catch {
    rmSync(staging, { recursive: true, force: true }) // another test process made it first
  }
  return TEMPLATE
}

/** A DATA_DIR holding a fresh embedded database, under `parent` (the system's temporary folder by default), removed when the test ends. */
export async function freshDataDir (t: { teardown: (fn: () => unknown) => void }, parent = tmpdir()): Promise<string> {
  const template = await ensureTemplate()
  const dir = mkdtempSync(join(parent, 'recrutamento-test-'))
  cpSync(template, dir, { recursive: true })
  // A service process killed by its test leaves its embedded database process to close on its own: it
  // may still write here for a moment, so the removal retries (ENOTEMPTY) instead of racing it.
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 }))
  return dir
}
