import type { Test } from 'tap'
import type { Kysely } from 'kysely'
import { createDatabase } from '../../src/storage/database.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import type { Schema } from '../../src/storage/schema.js'
import { freshDataDir } from './pglite-template.js'
import { freshPostgresDatabase } from './services.js'

export type Backend = 'pglite' | 'postgres'

/** An empty database of the given kind for one test, closed when it ends; undefined when skipped. */
export async function emptyDatabase (t: Test, backend: Backend): Promise<Kysely<Schema> | undefined> {
  const url = backend === 'postgres' ? await freshPostgresDatabase(t) : undefined
  if (backend === 'postgres' && url === undefined) return undefined
  const database = createDatabase({ url, dataDir: await freshDataDir(t), poolSize: 20 })
  t.teardown(() => database.close())
  await database.open()
  return database.db
}

/** A migrated database of the given kind for one test, closed when it ends; undefined when skipped. */
export async function migratedDatabase (t: Test, backend: Backend): Promise<Kysely<Schema> | undefined> {
  const db = await emptyDatabase(t, backend)
  if (db !== undefined) await migrateToLatest(db)
  return db
}
