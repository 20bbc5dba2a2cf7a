import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { logCause } from '../src/logging/redacted-cause.ts'
import { ConfigError } from '../src/config.ts'
import { isDatabaseUnavailable } from '../src/storage/errors.ts'
import { DataDirError } from '../src/storage/data-dir-lock.ts'
import { createDatabase, type Connection, type DatabaseKind } from '../src/storage/database.ts'
import { databaseTarget } from '../src/storage/database-target.ts'
import { migrateToLatest, pendingMigrations } from '../src/storage/migrate.ts'
import type { Schema } from '../src/storage/schema.ts'
import type { AppOptions } from '../src/app.ts'

export type StorageState = 'starting' | 'ready' | 'unavailable' | 'closed'

export interface Storage {
  db: Kysely<Schema>
  /** Where another library's pool reaches the same database. */
  connection: Connection
  kind: DatabaseKind
  /** `ready` once the database answered and every migration is applied. */
  state: () => StorageState
  /** Resolves when the storage first becomes ready (never rejects; waits through retries). */
  whenReady: () => Promise<void>
  /** Throws a 503 problem unless the storage is ready: requests fail fast instead of piling up. */
  assertReady: () => void
  /** One round trip to the database. */
  ping: () => Promise<void>
  /** How long one statement may run or wait for a lock, in ms; 0 when it may take any time (the embedded database). */
  statementDeadlineMs: number
  pendingMigrations: () => Promise<string[]>
}

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage
  }
}

const FIRST_RETRY_MS = 500
const LONGEST_RETRY_MS = 15_000
// Between the database's deadline for a statement and the request's: the rollback and the answer.
const DEADLINE_MARGIN_MS = 1000

/**
 * How long one statement may run or wait for a lock: DATABASE_STATEMENT_TIMEOUT_MS, else a second
 * less than HANDLER_TIMEOUT, so a request's database work has ended (rolled back) before its deadline.
 */
function statementDeadline (config: FastifyInstance['config']): number {
  if (config.DATABASE_STATEMENT_TIMEOUT_MS !== undefined) return config.DATABASE_STATEMENT_TIMEOUT_MS
  return config.HANDLER_TIMEOUT === 0 ? 0 : Math.max(100, config.HANDLER_TIMEOUT - DEADLINE_MARGIN_MS)
}

/** A DATA_DIR that cannot hold the embedded database is a setting that stops start-up plainly. */
function refusingUnusableDataDir<T> (open: () => T): T {
  try {
    return open()
  } catch (error) {
    throw error instanceof DataDirError ? new ConfigError(error.message) : error
  }
}

/**
 * Opens the database and applies migrations in the background, so the process starts (and answers
 * its probes) even when the database is down; it retries with growing pauses until it succeeds.
 */
async function storagePlugin (fastify: FastifyInstance, opts: Pick<AppOptions, 'startEmbeddedDatabase'>): Promise<void> {
  const log = fastify.log.child({ component: 'storage' })
  const { db, connection, kind, statementDeadlineMs, open, ping, close } = refusingUnusableDataDir(() => createDatabase({
    url: fastify.config.DATABASE_URL,
    dataDir: fastify.config.DATA_DIR,
    poolSize: fastify.config.DATABASE_POOL_SIZE,
    preparedStatements: fastify.config.DATABASE_PREPARED_STATEMENTS,
    connectTimeoutMs: fastify.config.DATABASE_POOL_TIMEOUT_MS,
    statementTimeoutMs: statementDeadline(fastify.config),
    onPoolError: error => log.warn(logCause(error), 'database connection lost'),
    onPreparedStatementsRefused: () => log.warn('a connection pooler in transaction mode refused named prepared statements: sending unnamed ones from now on (set DATABASE_PREPARED_STATEMENTS=false to start that way)'),
    log,
    startEmbedded: opts.startEmbeddedDatabase
  }))

  const target = databaseTarget(fastify.config.DATABASE_URL, fastify.config.DATA_DIR)
  let state: StorageState = 'starting'
  let retryTimer: NodeJS.Timeout | undefined
  let attempt: Promise<void> | undefined
  let markReady: () => void = () => {}
  const ready = new Promise<void>(resolve => { markReady = resolve })

  function start (pause: number): void {
    attempt = open().then(async () => await migrateToLatest(db)).then(applied => {
      if (state === 'closed') return
      state = 'ready'
      markReady()
      log.info({ kind, applied }, 'database ready')
    }, error => {
      if (state === 'closed') return
      state = 'unavailable'
      // A driver error can carry the client and its connection settings: only its name and code are logged,
      // plus the message of a failing migration, which is ours and names no host.
      const migrationFailure = isDatabaseUnavailable(error) ? {} : { message: (error as Error).message }
      log.error({ ...logCause(error), ...migrationFailure, database: target, retryInMs: pause }, `database not ready at ${target}; retrying`)
      retryTimer = setTimeout(() => start(Math.min(pause * 2, LONGEST_RETRY_MS)), pause)
      retryTimer.unref()
    })
  }

  const storage: Storage = {
    db,
    connection,
    kind,
    state: () => state,
    whenReady: () => ready,
    assertReady () {
      if (state !== 'ready') {
        throw problem('DatabaseUnavailable')
      }
    },
    ping,
    statementDeadlineMs,
    pendingMigrations: () => pendingMigrations(db)
  }
  fastify.decorate('storage', storage)

  fastify.addHook('onReady', async () => { start(FIRST_RETRY_MS) })
  fastify.addHook('onClose', async () => {
    state = 'closed'
    clearTimeout(retryTimer)
    await attempt?.catch(() => {})
    await close()
  })
}

export default fp(storagePlugin, { name: 'storage', fastify: '5.x', dependencies: ['config'] })
