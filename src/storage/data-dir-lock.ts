// Not proper-lockfile: its lock is a directory whose age alone says it is stale, so it cannot name the
// process holding DATA_DIR in the refusal, a killed instance's lock blocks a restart until that age has
// passed instead of being taken over at once (its process is gone), and a live holder whose event loop
// stalls past that age (PGlite opening, a frozen process) loses the lock to a second process, which
// would then open the same files. A pid checked with a signal has none of these gaps.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'

/** DATA_DIR cannot hold this instance's embedded database: the service stops with this message. */
export class DataDirError extends Error {
  override name = 'DataDirError'
}

/** True while a process with this id runs (one that we may not signal runs too). */
function running (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

interface Holder { pid: number, host: string }

/** Who holds the lock: its process id and host name (a shared volume may be mounted on several hosts). */
function holder (path: string): Holder | undefined {
  try {
    const [pid, host = ''] = readFileSync(path, 'utf8').trim().split(' ')
    const id = Number(pid)
    return Number.isInteger(id) && id > 0 ? { pid: id, host } : undefined
  } catch {
    return undefined
  }
}

/**
 * Takes the embedded database's lock: a file created exclusively, holding our process id. One process
 * at a time may open the data directory; a second one refuses instead of corrupting it. A lock whose
 * process is gone (killed, crashed) is stale and taken over. Returns the release function.
 */
export function lockDataDir (path: string, dataDir: string): () => void {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, `${process.pid} ${hostname()}\n`)
      closeSync(fd)
      return () => { if (holder(path)?.pid === process.pid) rmSync(path, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const held = holder(path)
      // Another host's process cannot be looked at from here (two containers sharing a volume, both pid 1).
      if (held !== undefined && held.host !== hostname()) {
        throw new DataDirError(`DATA_DIR ${dataDir} is locked by process ${held.pid} on host ${held.host}; if that instance is gone, remove ${path}, or give this instance its own DATA_DIR or a DATABASE_URL`)
      }
      // Our own id in the lock is a previous run of ours under the same id (a container's pid 1).
      if (held !== undefined && held.pid !== process.pid && running(held.pid)) {
        throw new DataDirError(`DATA_DIR ${dataDir} is locked: process ${held.pid} has its embedded database open; stop it, or give this instance its own DATA_DIR or a DATABASE_URL`)
      }
      rmSync(path, { force: true })
    }
  }
  throw new DataDirError(`DATA_DIR ${dataDir} is locked: another process took the embedded database's lock at the same moment`)
}
