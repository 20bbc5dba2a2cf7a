import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { startEmbeddedDatabase, type EmbeddedDatabase, type EmbeddedDatabaseStarter } from '../../src/storage/embedded-database.ts'
import { migratedTemplate } from './pglite-template.ts'
import { scratchDir } from './scratch-dir.ts'

// Starting an embedded database process and migrating its database costs an app far more than
// emptying its tables does, and most tests build apps. So the apps that build() makes in one test process
// share its embedded database servers: the product's own server process, started on a copy of a
// migrated template. An app takes a server no other app holds (one is started when all are taken),
// and gives it back when it closes, emptied to the template's state. Apps alive at the same time
// never share a database; an app never sees what an earlier one stored.
// Tests of the process's own life (kill, restart, lock, DATA_DIR) start their own with the product's
// default (`ownDatabaseProcess` in test/helper.ts).

interface Server {
  dir: string
  database: EmbeddedDatabase
  /** The catalogue's fingerprint and the tables to empty, read once the server first serves. */
  template: Promise<Template>
}

interface Template { fingerprint: string, tables: string[] }

// What an app may leave behind beyond rows: objects it created or altered, in any schema, and the
// migrations' own record. A server whose catalogue differs from the template's is not reused.
const FINGERPRINT = `select md5(concat_ws('|',
  (select string_agg(format('%s.%s:%s:%s', n.nspname, c.relname, c.relkind,
      (select string_agg(format('%s %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef), ',' order by a.attnum)
       from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)), ';' order by n.nspname, c.relname)
   from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%'),
  (select count(*) from pg_namespace), (select count(*) from pg_proc), (select count(*) from pg_type),
  (select count(*) from pg_constraint), (select count(*) from pg_trigger), (select count(*) from pg_extension),
  (select count(*) from pg_database), (select count(*) from pg_roles), (select count(*) from pg_policy),
  (select string_agg(name, ',' order by name) from kysely_migration),
  (select string_agg(id || ' ' || is_locked, ',') from kysely_migration_lock))) as fingerprint`

// Every table the migrations made, except their own record.
const TABLES = `select format('%I.%I', schemaname, tablename) as name from pg_tables
  where schemaname not in ('pg_catalog', 'information_schema') and tablename not like 'kysely\\_migration%'`

const idle: Server[] = []
const running = new Set<Server>()
// The test file's root test, once an app asked for a server: its teardown stops them. Imported then,
// not with this module: the benchmarks import test/helper.ts and are no test files.
let root: { teardown: (fn: () => unknown) => void } | undefined
let stoppingAtEnd = false

async function withClient<T> (server: Server, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: server.database.host, port: server.database.port, user: 'postgres', database: 'postgres' })
  // A server stopped under a query (the file ended meanwhile) fails that query; the event would crash the process.
  client.on('error', () => {})
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

async function readTemplate (server: Server): Promise<Template> {
  await server.database.whenServing()
  return await withClient(server, async client => ({
    fingerprint: (await client.query<{ fingerprint: string }>(FINGERPRINT)).rows[0]!.fingerprint,
    tables: (await client.query<{ name: string }>(TABLES)).rows.map(row => row.name)
  }))
}

function startServer (template: string): Server {
  const dir = mkdtempSync(join(scratchDir, 'recrutamento-shared-'))
  cpSync(template, dir, { recursive: true })
  const server: Server = { dir, database: startEmbeddedDatabase(dir), template: Promise.resolve({ fingerprint: '', tables: [] }) }
  server.template = readTemplate(server)
  server.template.catch(() => {}) // read again, and reported, by whoever waits for it
  running.add(server)
  if (!stoppingAtEnd) {
    stoppingAtEnd = true
    // When the file's last test has ended: every server stops, its database closed cleanly.
    root?.teardown(async () => { await Promise.all([...running].map(stopServer)) })
  }
  return server
}

async function stopServer (server: Server): Promise<void> {
  running.delete(server)
  await server.database.stop()
  rmSync(server.dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 })
}

/** Back to the template's state: session settings and temporary objects discarded, every table emptied. */
async function empty (server: Server): Promise<boolean> {
  const template = await server.template
  return await withClient(server, async client => {
    await client.query('discard all')
    const { fingerprint } = (await client.query<{ fingerprint: string }>(FINGERPRINT)).rows[0]!
    if (fingerprint !== template.fingerprint) return false
    if (template.tables.length > 0) await client.query(`truncate ${template.tables.join(', ')} restart identity cascade`)
    return true
  })
}

async function giveBack (server: Server): Promise<void> {
  const clean = await empty(server).catch(() => false)
  if (clean) idle.push(server)
  else await stopServer(server)
}

/** A shared server's starter, and how an app that failed before starting it gives it back. */
export type SharedEmbeddedDatabase = EmbeddedDatabaseStarter & { release: () => void }

/**
 * How one app of this test process starts its embedded database: on a shared server, emptied to the
 * migrated template. The server is taken now, before the app exists: copying the template blocks the
 * event loop, which an app already running would see as a stall (its liveness turns 503).
 */
export async function sharedEmbeddedDatabase (): Promise<SharedEmbeddedDatabase> {
  const template = await migratedTemplate()
  root ??= (await import('tap')).default
  const server = idle.pop() ?? startServer(template)
  let started = false
  let stopped: Promise<void> | undefined
  const start: EmbeddedDatabaseStarter = () => {
    started = true
    return {
      host: server.database.host,
      port: server.database.port,
      whenServing: async () => {
        await server.database.whenServing()
        await server.template
      },
      stop: async () => {
        stopped ??= giveBack(server)
        await stopped
      }
    }
  }
  // Never started, the server is as it was taken: straight back to the idle ones.
  return Object.assign(start, { release: () => { if (!started) idle.push(server) } })
}
