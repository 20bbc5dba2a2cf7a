import { accessSync, constants, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'

// Each shared database server of a test process, and each app with a database process of its own,
// starts on a copy of an embedded database's template: a thousand files whose creation costs the kernel
// many times more on a disk's filesystem than in memory. So the copies go to the machine's
// memory-backed filesystem when it and the memory this process may use have room, else to tmpdir().
const MEMORY_FILESYSTEM = '/dev/shm'
const ROOM_BYTES = 2 * 1024 ** 3

function memoryFilesystemWithRoom (): boolean {
  try {
    accessSync(MEMORY_FILESYSTEM, constants.W_OK)
    const { bavail, bsize } = statfsSync(MEMORY_FILESYSTEM)
    // Files there are memory: a container's memory limit counts them too.
    return Math.min(bavail * bsize, process.availableMemory()) >= ROOM_BYTES
  } catch {
    return false
  }
}

/** Where tests put the embedded databases' directories and other files they copy in bulk. */
export const scratchDir = memoryFilesystemWithRoom() ? MEMORY_FILESYSTEM : tmpdir()
