import { Migrator, type Kysely, type MigrationResultSet, type Migration } from 'kysely'
import { migrations } from './migrations/index.ts'
import { withoutStatementDeadline } from './statement-deadline.ts'

// A migration may run longer than a request's statement deadline (an index built on a large table):
// inside the migrations' transaction it has none.
const unbounded: Record<string, Migration> = Object.fromEntries(Object.entries(migrations).map(([name, migration]) => [name, {
  ...migration,
  up: async (db: Kysely<any>) => {
    await withoutStatementDeadline(db)
    await migration.up(db)
  }
}]))

// Migrations run before the schema they create exists, so they see the database untyped.
function migrator (db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => unbounded } })
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest (db: Kysely<any>): Promise<string[]> {
  const { error, results }: MigrationResultSet = await migrator(db).migrateToLatest()
  if (error !== undefined) throw error
  return (results ?? []).filter(result => result.status === 'Success').map(result => result.migrationName)
}

/** The names of migrations known to the code but not yet applied to the database. */
export async function pendingMigrations (db: Kysely<any>): Promise<string[]> {
  const all = await migrator(db).getMigrations()
  return all.filter(migration => migration.executedAt === undefined).map(migration => migration.name)
}
