// The embedded database's own process: opens PGlite in the directory it is given and serves it over
// the PostgreSQL wire protocol on a Unix socket, so the service reaches it with `pg` like any
// PostgreSQL, and neither opening it nor any query runs on the service's event loop.
// embedded-database.ts starts it, restarts it if it dies, and stops it by closing the IPC channel.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket'
import { lockDataDir } from './data-dir-lock.ts'
import { SessionQueue } from './session-queue.ts'

const [directory, socketArgument] = process.argv.slice(2) as [string, string | undefined]

// PGlite's defaults reserve a server's share of buffers inside the WebAssembly memory; a small buffer
// pool leaves the rest of the caching to the operating system's page cache, as for any file.
async function open (): Promise<PGlite> {
  return await PGlite.create(directory, { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] })
}

// Called with a directory alone: create the database there, and stop.
if (socketArgument === undefined) {
  await (await open()).close()
  process.exit(0)
}
const socketPath = socketArgument
// How often the socket file is checked: one deleted under us is made again.
const SOCKET_CHECK_MS = 1000

function fail (error: unknown): never {
  process.stderr.write(`embedded database failed: ${(error as Error).message}\n`)
  process.exit(1)
}

// A lock of the database process's own, beside its service's: a database process that outlived its
// service (frozen when the service was killed) still holds the directory, and a new one waits for it
// to go (its service restarts it until then) instead of opening the same files and socket twice.
let unlock: () => void
try {
  unlock = lockDataDir(join(dirname(socketPath), 'pglite-server.lock'), dirname(socketPath))
} catch (error) {
  fail(error)
}

// A service that goes away while the database is still opening leaves nothing to serve: stop at once.
const stopWhileOpening = (): never => process.exit(0)
process.once('disconnect', stopWhileOpening)

// A fresh directory is made in a process of its own: creating a database (initdb) leaves its own
// WebAssembly instance and files in memory for as long as the process lives.
if (!existsSync(join(directory, 'PG_VERSION'))) {
  const made = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), directory], { stdio: ['ignore', 'inherit', 'inherit'] })
  if (made.status !== 0) fail(new Error(`creating the database in ${directory} failed`))
}

const db = await open()
const queue = new SessionQueue(db, fail) as unknown as PGLiteSocketHandlerOptions['queryQueue']

const server = createServer(socket => {
  new PGLiteSocketHandler({ queryQueue: queue, closeOnDetach: true }).attach(socket).catch(() => socket.destroy())
  // The handler answers each message of a batch with a write of its own; corked until its turn of the
  // event loop is over (it runs in the next setImmediate), they leave as one.
  socket.on('data', () => {
    socket.cork()
    setImmediate(() => socket.uncork())
  })
})
server.on('error', fail)
let listening: number | undefined // the inode of the socket file this process serves on

function listen (then: () => void): void {
  rmSync(socketPath, { force: true }) // left behind by a process that was killed
  server.listen(socketPath, () => {
    chmodSync(socketPath, 0o600) // the database trusts whoever connects: only our own user may
    listening = statSync(socketPath).ino
    then()
  })
}

function socketIsOurs (): boolean {
  try {
    return statSync(socketPath).ino === listening
  } catch {
    return false
  }
}

// The callback takes the error of a channel the service closed meanwhile (its disconnect is handled below).
listen(() => process.send?.('ready', undefined, undefined, () => {}))
// Connections already open keep working on a deleted socket file, new ones would find nothing.
setInterval(() => {
  if (listening === undefined || socketIsOurs()) return
  listening = undefined
  server.close()
  listen(() => process.stderr.write('embedded database: its socket file had gone; serving on a new one\n'))
}, SOCKET_CHECK_MS).unref()

// The service closes the channel to stop us, or it died: either way the database closes cleanly.
// Closing the server unlinks the socket path: never one another process serves on now.
process.off('disconnect', stopWhileOpening)
process.once('disconnect', () => {
  if (socketIsOurs()) server.close()
  db.close().then(() => {
    unlock()
    process.exit(0)
  }, fail)
})
