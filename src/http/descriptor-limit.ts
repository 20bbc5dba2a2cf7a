import { readFileSync } from 'node:fs'

/** The process's soft limit on open files, from /proc/self/limits; undefined where it cannot be read or is unlimited. */
export function openFileLimit (limitsFile = '/proc/self/limits'): number | undefined {
  let text: string
  try {
    text = readFileSync(limitsFile, 'utf8')
  } catch {
    return undefined
  }
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(text)?.[1]
  return soft === undefined || soft === 'unlimited' ? undefined : Number(soft)
}

/**
 * The connections the server accepts at most under a limit of `openFiles` descriptors: what is left
 * once the process's own are set aside (the database pool, Redis, the log, the embedded database's
 * socket, the gRPC server, files it reads), a quarter of the limit and never more than 256.
 */
export function connectionCap (openFiles: number): number {
  return Math.max(1, openFiles - Math.min(256, Math.floor(openFiles / 4)))
}

/** Whether an error says the process or the system ran out of file descriptors. */
export function isDescriptorExhaustion (error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'EMFILE' || code === 'ENFILE'
}
