import type { Test } from 'tap'
import type { Kysely } from 'kysely'
import { createDatabase, type Database } from '../../src/storage/database.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import type { Schema } from '../../src/storage/schema.ts'
import { emptyDataDir, freshDataDir } from './pglite-template.ts'
import { sharedEmbeddedDatabase } from './shared-embedded-database.ts'
import { freshPostgresDatabase } from './services.ts'

export type Backend = 'pglite' | 'postgres'

/**
 * A database of the given kind for one test, closed when it ends; undefined when skipped. An embedded
 * one is either new (its own process) or already migrated (on the server this process shares).
 */
async function openDatabase (t: Test, backend: Backend, embedded: 'new' | 'migrated'): Promise<Database | undefined> {
  const url = backend === 'postgres' ? await freshPostgresDatabase(t) : undefined
  if (backend === 'postgres' && url === undefined) return undefined
  const where = url !== undefined
    ? { dataDir: emptyDataDir(t) }
    : embedded === 'migrated' ? { dataDir: emptyDataDir(t), startEmbedded: await sharedEmbeddedDatabase() } : { dataDir: await freshDataDir(t) }
  const database = createDatabase({ url, poolSize: 20, ...where })
  t.teardown(() => database.close())
  await database.open()
  return database
}

/** An empty database of the given kind for one test, closed when it ends; undefined when skipped. */
export async function emptyDatabase (t: Test, backend: Backend): Promise<Kysely<Schema> | undefined> {
  return (await openDatabase(t, backend, 'new'))?.db
}

/** A migrated database of the given kind for one test, with where another pool reaches it; undefined when skipped. */
export async function migratedStorage (t: Test, backend: Backend): Promise<Database | undefined> {
  const database = await openDatabase(t, backend, 'migrated')
  if (database !== undefined) await migrateToLatest(database.db)
  return database
}

/** A migrated database of the given kind for one test, closed when it ends; undefined when skipped. */
export async function migratedDatabase (t: Test, backend: Backend): Promise<Kysely<Schema> | undefined> {
  return (await migratedStorage(t, backend))?.db
}
