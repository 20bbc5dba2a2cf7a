import { PGlite } from '@electric-sql/pglite'
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'

/**
 * A pg-style pool over one embedded PGlite database for Kysely's PostgresDialect. PGlite has a
 * single connection, so the pool hands it to one holder at a time: a transaction keeps it until
 * it releases, and everyone else waits in line.
 */
export function createPglitePool (open: () => Promise<PGlite>): PostgresPool {
  const database = open()
  const waiting: Array<() => void> = []
  let held = false

  function release (): void {
    const next = waiting.shift()
    if (next === undefined) held = false
    else next()
  }

  async function acquire (): Promise<void> {
    if (!held) {
      held = true
      return
    }
    await new Promise<void>(resolve => waiting.push(resolve))
  }

  return {
    async connect (): Promise<PostgresPoolClient> {
      const pglite = await database
      await acquire()
      let released = false
      return {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          const result = await pglite.query<R>(sql, parameters as unknown[])
          return {
            command: (result as { command?: string }).command as PostgresQueryResult<R>['command'],
            rowCount: result.affectedRows ?? result.rows.length,
            rows: result.rows
          }
        },
        release () {
          if (released) return
          released = true
          release()
        }
      } as PostgresPoolClient
    },
    async end () {
      const pglite = await database
      await pglite.close()
    }
  }
}

export async function openPglite (dataDir: string): Promise<PGlite> {
  return await PGlite.create(dataDir)
}
