import { statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'

// Nearly every app a test builds runs on a copy of an embedded database's template: a thousand files
// whose creation costs the kernel many times more on a disk's filesystem than in memory. So the
// copies go to the machine's memory-backed filesystem when it has room for them, else to tmpdir().
const MEMORY_FILESYSTEM = '/dev/shm'
const ROOM_BYTES = 2 * 1024 ** 3

function memoryFilesystemWithRoom (): boolean {
  try {
    const { bavail, bsize } = statfsSync(MEMORY_FILESYSTEM)
    return bavail * bsize >= ROOM_BYTES
  } catch {
    return false
  }
}

/** Where tests put the embedded databases' directories and other files they copy in bulk. */
export const scratchDir = memoryFilesystemWithRoom() ? MEMORY_FILESYSTEM : tmpdir()
