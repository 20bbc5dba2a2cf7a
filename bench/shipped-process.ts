import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * The V8 flags the image runs the service with: the Dockerfile's `ENV NODE_OPTIONS=...`, read from the
 * Dockerfile itself so measurements follow what ships.
 */
export const SHIPPED_NODE_OPTIONS: string = (() => {
  const dockerfile = readFileSync(resolve(import.meta.dirname, '../Dockerfile'), 'utf8')
  const match = /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile)
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS')
  return (match[1] as string).trim()
})()

/** The environment of a service process run as the image runs it, on loopback, with the settings given. */
export function shippedEnvironment (settings: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NODE_OPTIONS: SHIPPED_NODE_OPTIONS, NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...settings }
}

/** A process's resident memory in bytes (Linux /proc). */
export function rssBytes (pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}
