import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { startEmbeddedDatabase, type EmbeddedDatabaseStarter, type EmbeddedLog } from './embedded-database.ts'
import { preparingClient } from './prepared-statements.ts'
import { readTimestampsAsIsoStrings } from './timestamps.ts'
import type { Schema } from './schema.ts'

export type DatabaseKind = 'postgres' | 'pglite'

export interface DatabaseSettings {
  /** postgres:// URL of a PostgreSQL server; without one the embedded PGlite is used. */
  url?: string
  /** Where the embedded database keeps its files. */
  dataDir: string
  /** Largest number of pooled PostgreSQL connections. */
  poolSize?: number
  /** Send parameterised statements as named prepared statements (PostgreSQL only; default true). */
  preparedStatements?: boolean
  /** How long a query may wait for a connection before failing, in ms. */
  connectTimeoutMs?: number
  /**
   * statement_timeout and lock_timeout on every PostgreSQL connection, in ms (0 or unset: none): a
   * statement past it is cancelled and its transaction rolled back.
   */
  statementTimeoutMs?: number
  /** Told once when a connection pooler refuses named statements: from then on they go unnamed. */
  onPreparedStatementsRefused?: () => void
  /** Reports pool errors (a connection lost while idle) instead of crashing the process. */
  onPoolError?: (error: Error) => void
  /** Where the embedded database's process reports starts, stops and restarts. */
  log?: EmbeddedLog
  /** Starts the embedded database: in a process of its own under `dataDir` unless another way is given. */
  startEmbedded?: EmbeddedDatabaseStarter
}

export interface Database {
  db: Kysely<Schema>
  /**
   * How a pool of another library reaches the same database (pg-boss keeps its own: it sends several
   * statements in one query and reads every statement's rows, which Kysely's connection does not return).
   */
  connection: Connection
  kind: DatabaseKind
  /** How long one statement may run or wait for a lock, in ms; 0 when it may take any time (the embedded database). */
  statementDeadlineMs: number
  /** Resolves when the database can take connections: at once for PostgreSQL, once its process serves for the embedded one. */
  open: () => Promise<void>
  /**
   * `select 1` on a connection of its own, so a readiness check never waits behind a pool that busy
   * requests hold: a loaded instance is not a broken one.
   */
  ping: () => Promise<void>
  /** Closes every connection, whether or not a query ever ran, then stops the embedded database. */
  close: () => Promise<void>
}

// Columns of type bigint (count(*) among them) arrive as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, value => Number(value))
readTimestampsAsIsoStrings()

export type Connection = Pick<pg.PoolConfig, 'connectionString' | 'host' | 'port' | 'user' | 'database'>

function pool (connection: Connection, settings: DatabaseSettings, size: number, { prepared = false, statementTimeoutMs = 0 } = {}): pg.Pool {
  const created = new pg.Pool({
    ...connection,
    ...(prepared && { Client: preparingClient(() => settings.onPreparedStatementsRefused?.()) }),
    max: size,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 2000,
    idleTimeoutMillis: 30_000,
    application_name: 'recrutamento-api',
    // Set on the session before the pool hands the connection out. Not as startup parameters: a pooler
    // such as PgBouncer refuses those it does not know.
    onConnect: async client => {
      if (statementTimeoutMs > 0) await client.query(`set statement_timeout = ${statementTimeoutMs}; set lock_timeout = ${statementTimeoutMs}`)
    }
  })
  const report = (error: Error): void => settings.onPoolError?.(error)
  // A connection can drop while idle (the pool reports it) or while checked out for a query (the
  // client reports it, and the query fails with it): neither may crash the process.
  created.on('error', report)
  created.on('connect', client => { client.on('error', report) })
  return created
}

/**
 * Opens the service's database through `pg` and Kysely's PostgresDialect: PostgreSQL when a URL is
 * given, otherwise the embedded PGlite, which runs in a process of its own and serves the same protocol.
 */
export function createDatabase (settings: DatabaseSettings): Database {
  const embedded = settings.url === undefined ? (settings.startEmbedded ?? startEmbeddedDatabase)(settings.dataDir, settings.log) : undefined
  const connection: Connection = embedded === undefined
    ? { connectionString: settings.url }
    : { host: embedded.host, port: embedded.port, user: 'postgres', database: 'postgres' }
  // The embedded database's connections share one session, where the same statement name prepared by
  // two connections would collide: there, statements stay unnamed.
  // The embedded database serves one session to every connection and takes no startup parameters:
  // the statement deadline is PostgreSQL's.
  const statementTimeoutMs = embedded === undefined ? settings.statementTimeoutMs : undefined
  const queries = pool(connection, settings, settings.poolSize ?? 10, { prepared: embedded === undefined && settings.preparedStatements !== false, statementTimeoutMs })
  const probe = pool(connection, settings, 1, { statementTimeoutMs })
  // Kysely ends the pool only if a query ever ran; ending it ourselves covers the other case.
  let ended = false
  const endOnce = async (): Promise<void> => {
    if (ended) return
    ended = true
    await queries.end()
  }
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: { connect: () => queries.connect(), end: endOnce } }) })
  return {
    db,
    connection,
    kind: embedded === undefined ? 'postgres' : 'pglite',
    statementDeadlineMs: statementTimeoutMs ?? 0,
    open: async () => await embedded?.whenServing(),
    async ping () {
      await probe.query('select 1')
    },
    async close () {
      await db.destroy()
      await endOnce()
      await probe.end()
      await embedded?.stop()
    }
  }
}
