// The embedded database's own process: opens PGlite in the directory it is given and serves it over
// the PostgreSQL wire protocol on a Unix socket, so the service reaches it with `pg` like any
// PostgreSQL, and neither opening it nor any query runs on the service's event loop.
// embedded-database.ts starts it, restarts it if it dies, and stops it by closing the IPC channel.
import { chmodSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket'
import { SessionQueue } from './session-queue.js'

const [directory, socketPath] = process.argv.slice(2) as [string, string]

function fail (error: unknown): never {
  process.stderr.write(`embedded database failed: ${(error as Error).message}\n`)
  process.exit(1)
}

const db = await PGlite.create(directory)
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
rmSync(socketPath, { force: true }) // left behind by a process that was killed
server.listen(socketPath, () => {
  chmodSync(socketPath, 0o600) // the database trusts whoever connects: only our own user may
  process.send?.('ready')
})

// The service closes the channel to stop us, or it died: either way the database closes cleanly.
process.once('disconnect', () => {
  server.close()
  db.close().then(() => process.exit(0), fail)
})
