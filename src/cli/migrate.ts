// npm run migrate: applies every pending migration to the configured database, then exits.
import { ConfigError, loadConfig } from '../config.js'
import { createDatabase } from '../storage/database.js'
import { migrateToLatest } from '../storage/migrate.js'

async function main (): Promise<number> {
  const config = loadConfig()
  const { db, kind, close } = createDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR })
  try {
    const applied = await migrateToLatest(db)
    process.stdout.write(`${kind}: ${applied.length === 0 ? 'already up to date' : `applied ${applied.join(', ')}`}\n`)
    return 0
  } finally {
    await close()
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`migrate failed: ${error instanceof ConfigError ? error.message : (error as Error).message}\n`)
  process.exitCode = 1
}
