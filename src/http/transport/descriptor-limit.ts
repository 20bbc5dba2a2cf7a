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

/** The connections each listener may hold open; undefined where nothing caps them. */
export interface ConnectionCaps {
  api: number | undefined
  /** Undefined when there is no management listener. */
  management: number | undefined
}

/** The management listener's share of the budget at most: a few scrapers and probers need no more. */
export const MANAGEMENT_MAX_CONNECTIONS = 32

/**
 * Splits one budget of connections between the service's port and the management listener, so that
 * a flood on either leaves the other its own: the management listener takes an eighth of it, at least
 * one and never more than MANAGEMENT_MAX_CONNECTIONS, and the service's port the rest. Without a
 * budget the service's port is not capped, and the management listener still takes no more than its most.
 */
export function shareConnections (budget: number | undefined, withManagement: boolean): ConnectionCaps {
  if (!withManagement) return { api: budget, management: undefined }
  if (budget === undefined) return { api: undefined, management: MANAGEMENT_MAX_CONNECTIONS }
  const management = Math.max(1, Math.min(MANAGEMENT_MAX_CONNECTIONS, Math.floor(budget / 8)))
  return { api: Math.max(1, budget - management), management }
}

/** Whether an error says the process or the system ran out of file descriptors. */
export function isDescriptorExhaustion (error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'EMFILE' || code === 'ENFILE'
}
