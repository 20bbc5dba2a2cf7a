import { ConfigError, loadConfig } from '../config.ts'
import { createDatabase, type Database } from '../storage/database.ts'

/**
 * Runs a command-line task against the configured database (PostgreSQL or the embedded one),
 * closes it afterwards, and turns a failure into one line on stderr and exit code 1.
 */
export async function withDatabase (command: string, task: (database: Database) => Promise<void>): Promise<void> {
  try {
    const config = loadConfig()
    const database = createDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR })
    try {
      await database.open()
      await task(database)
    } finally {
      await database.close()
    }
  } catch (error) {
    process.stderr.write(`${command} failed: ${error instanceof ConfigError ? error.message : (error as Error).message}\n`)
    process.exitCode = 1
  }
}
