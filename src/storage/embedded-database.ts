import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DataDirError, lockDataDir } from './data-dir-lock.ts'

export interface EmbeddedLog {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
  error: (fields: object, message: string) => void
}

export interface EmbeddedDatabase {
  /** Where `pg` finds the socket: the directory (pg's `host`) and the port named in the file name. */
  host: string
  port: number
  /** Resolves when the process serves connections; rejects once MAX_RESTARTS restarts in a row failed. */
  whenServing: () => Promise<void>
  /** Stops the process (the database closes cleanly) and releases the data directory. */
  stop: () => Promise<void>
}

/** How an embedded database is started for a DATA_DIR: `startEmbeddedDatabase` below, or one given to the app. */
export type EmbeddedDatabaseStarter = (dataDir: string, log?: EmbeddedLog) => EmbeddedDatabase

const SOCKET_PORT = 5432
const FIRST_RESTART_MS = 250
const LONGEST_RESTART_MS = 5000
const MAX_RESTARTS = 8
const STOP_TIMEOUT_MS = 10_000
const MAX_SOCKET_PATH_BYTES = 103
const GAVE_UP = 'the embedded database stopped and could not be restarted'

// The entry beside this module, compiled or not, as this module runs.
const EXTENSION = extname(fileURLToPath(import.meta.url))
const ENTRY = fileURLToPath(new URL(`./embedded-server${EXTENSION}`, import.meta.url))
// Only what the entry needs to load: the parent's hooks (a debugger, a test runner's) would slow every start.
// The database's WebAssembly runs as V8's baseline compiler (Liftoff) makes it: optimised code for
// the functions a database calls often doubles the process's memory for little gain in its speed.
const EXEC_ARGV = ['--liftoff-only']

/**
 * Runs the embedded database (PGlite under DATA_DIR/pglite) in a child process serving the PostgreSQL
 * wire protocol on DATA_DIR/.s.PGSQL.5432. The data directory is locked first, so a second instance
 * refuses to start. A process that dies is restarted with growing pauses (up to LONGEST_RESTART_MS); what
 * it committed is on disk and stays.
 */
export function startEmbeddedDatabase (dataDir: string, log?: EmbeddedLog): EmbeddedDatabase {
  const host = resolve(dataDir)
  // A Unix socket's path is at most 107 bytes on Linux (103 on macOS): say so instead of failing to listen.
  if (Buffer.byteLength(resolve(host, `.s.PGSQL.${SOCKET_PORT}`)) > MAX_SOCKET_PATH_BYTES) {
    throw new DataDirError(`DATA_DIR ${dataDir} is too long a path for the embedded database's socket (at most ${MAX_SOCKET_PATH_BYTES - 14} bytes); choose a shorter DATA_DIR`)
  }
  mkdirSync(host, { recursive: true, mode: 0o700 })
  const unlock = lockDataDir(resolve(host, 'pglite.lock'), dataDir)
  let child: ChildProcess | undefined
  let state: 'starting' | 'serving' | 'failed' = 'starting'
  let stopping = false
  let failures = 0
  let restartTimer: NodeJS.Timeout | undefined
  // Callers waiting for the process to serve, settled together.
  let waiting: Array<{ resolve: () => void, reject: (error: Error) => void }> = []

  function settle (outcome: 'serving' | 'failed'): void {
    state = outcome
    const waiters = waiting
    waiting = []
    const error = new Error(GAVE_UP)
    for (const waiter of waiters) {
      if (outcome === 'serving') waiter.resolve()
      else waiter.reject(error)
    }
  }

  function spawn (): void {
    const started = fork(ENTRY, [resolve(host, 'pglite'), resolve(host, `.s.PGSQL.${SOCKET_PORT}`)], {
      execArgv: EXEC_ARGV,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true // a Ctrl-C to the terminal stops the service, and the service stops its database after draining
    })
    child = started
    started.on('error', error => log?.error({ err: error }, 'embedded database process error'))
    started.on('message', message => {
      if (message !== 'ready') return
      failures = 0
      log?.info({ databasePid: started.pid }, 'embedded database serving')
      settle('serving')
    })
    started.on('exit', (code, signal) => {
      if (stopping) return
      state = 'starting'
      failures++
      // Past MAX_RESTARTS, whoever waits is told it failed (readiness stays Unhealthy), but restarts go on
      // at the longest pause: a cause that passes (a full disk freed) needs no restart of the service.
      if (failures === MAX_RESTARTS + 1) {
        log?.error({ code, signal, restarts: MAX_RESTARTS }, `embedded database keeps stopping; retrying every ${LONGEST_RESTART_MS} ms`)
        settle('failed')
      }
      const pause = Math.min(FIRST_RESTART_MS * 2 ** (failures - 1), LONGEST_RESTART_MS)
      log?.warn({ code, signal, restartInMs: pause, attempt: failures }, 'embedded database stopped; restarting')
      restartTimer = setTimeout(spawn, pause)
    })
  }

  spawn()
  return {
    host,
    port: SOCKET_PORT,
    async whenServing () {
      if (state === 'serving') return
      if (state === 'failed') throw new Error(GAVE_UP)
      await new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }))
    },
    async stop () {
      stopping = true
      clearTimeout(restartTimer)
      settle('failed') // nobody waits on a database that is being stopped (shutdown would hang behind it)
      const last = child
      if (last !== undefined && last.exitCode === null && last.signalCode === null) {
        const exited = once(last, 'exit')
        if (last.connected) last.disconnect()
        // Closing flushes the database; a process that hangs in it is killed, its last commit already on disk.
        const kill = setTimeout(() => last.kill('SIGKILL'), STOP_TIMEOUT_MS)
        await exited
        clearTimeout(kill)
      }
      unlock()
    }
  }
}
