import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { Kysely, PostgresDialect, sql, type PostgresPool } from 'kysely'
import pg from 'pg'
import { createPglitePool, openPglite } from './pglite-pool.js'
import type { Schema } from './schema.js'

export type DatabaseKind = 'postgres' | 'pglite'

export interface DatabaseSettings {
  /** postgres:// URL of a PostgreSQL server; without one the embedded PGlite is used. */
  url?: string
  /** Where the embedded database keeps its files. */
  dataDir: string
  /** Largest number of pooled PostgreSQL connections. */
  poolSize?: number
  /** How long a query may wait for a connection before failing, in ms. */
  connectTimeoutMs?: number
  /** Reports pool errors (a connection lost while idle) instead of crashing the process. */
  onPoolError?: (error: Error) => void
}

export interface Database {
  db: Kysely<Schema>
  kind: DatabaseKind
  /**
   * `select 1`. On PostgreSQL it runs on a connection of its own, so a readiness check never waits
   * behind a pool that busy requests hold: a loaded instance is not a broken one.
   */
  ping: () => Promise<void>
  /** Closes every connection, whether or not a query ever ran. */
  close: () => Promise<void>
}

// Columns of type bigint (count(*) among them) arrive as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, value => Number(value))

function postgresPool (settings: DatabaseSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.poolSize ?? 10,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 2000,
    idleTimeoutMillis: 30_000,
    application_name: 'recrutamento-api'
  })
  const report = (error: Error): void => settings.onPoolError?.(error)
  // A connection can drop while idle (the pool reports it) or while checked out for a query (the
  // client reports it, and the query fails with it): neither may crash the process.
  pool.on('error', report)
  pool.on('connect', client => client.on('error', report))
  return pool
}

/** Opens the service's database: PostgreSQL when a URL is given, the embedded PGlite otherwise. */
export function createDatabase (settings: DatabaseSettings): Database {
  const kind: DatabaseKind = settings.url === undefined ? 'pglite' : 'postgres'
  const pool = kind === 'postgres' ? postgresPool(settings) : embeddedPool(settings.dataDir)
  // Kysely ends the pool only if a query ever ran; ending it ourselves covers the other case.
  let ended = false
  const endOnce = async (): Promise<void> => {
    if (ended) return
    ended = true
    await pool.end()
  }
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: { connect: () => pool.connect(), end: endOnce } }) })
  const probe = kind === 'postgres' ? postgresPool({ ...settings, poolSize: 1 }) : undefined
  return {
    db,
    kind,
    async ping () {
      if (probe !== undefined) await probe.query('select 1')
      else await sql`select 1`.execute(db)
    },
    async close () {
      await db.destroy()
      await endOnce()
      await probe?.end()
    }
  }
}

function embeddedPool (dataDir: string): PostgresPool {
  const directory = resolve(dataDir, 'pglite')
  mkdirSync(directory, { recursive: true })
  return createPglitePool(() => openPglite(directory))
}
