import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * The V8 flags the image runs the service with: the options before `--import` in the Dockerfile's
 * `CMD ["node", ...]`, read from the Dockerfile itself so measurements follow what ships.
 */
export const SHIPPED_NODE_FLAGS: readonly string[] = (() => {
  const dockerfile = readFileSync(resolve(import.meta.dirname, '../Dockerfile'), 'utf8')
  const match = /^CMD (\[.*\])\s*$/m.exec(dockerfile)
  if (match === null) throw new Error('the Dockerfile has no CMD ["node", ...]')
  const [, ...args] = JSON.parse(match[1] as string) as string[]
  const end = args.findIndex(arg => arg === '--import' || !arg.startsWith('--'))
  const flags = end === -1 ? args : args.slice(0, end)
  if (flags.length === 0) throw new Error(`the Dockerfile's CMD starts with no V8 flags: ${match[1]}`)
  return flags
})()

/** The environment of a service process run as the image runs it, on loopback, with the settings given. */
export function shippedEnvironment (settings: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...settings }
}

/** A process's resident memory in bytes (Linux /proc). */
export function rssBytes (pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}
