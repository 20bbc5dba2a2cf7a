// npm run migrate: applies every pending migration to the configured database, then exits.
import { migrateToLatest } from '../storage/migrate.ts'
import { withDatabase } from './with-database.ts'

await withDatabase('migrate', async ({ db, kind }) => {
  const applied = await migrateToLatest(db)
  process.stdout.write(`${kind}: ${applied.length === 0 ? 'already up to date' : `applied ${applied.join(', ')}`}\n`)
})
