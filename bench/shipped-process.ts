import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { stripTypeScriptTypes } from 'node:module'
import { join, resolve } from 'node:path'

/**
 * The V8 flags the image runs the service with: the options before `--import` in the Dockerfile's
 * `CMD ["node", ...]`, read from the Dockerfile itself so measurements follow what ships.
 * BENCH_SERVICE_NODE_FLAGS replaces them (space-separated; empty for node's defaults), to measure others.
 */
export const SHIPPED_NODE_FLAGS: readonly string[] = (() => {
  const override = process.env.BENCH_SERVICE_NODE_FLAGS
  if (override !== undefined) return override.split(' ').filter(flag => flag !== '')
  const dockerfile = readFileSync(resolve(import.meta.dirname, '../Dockerfile'), 'utf8')
  const match = /^CMD (\[.*\])\s*$/m.exec(dockerfile)
  if (match === null) throw new Error('the Dockerfile has no CMD ["node", ...]')
  const [, ...args] = JSON.parse(match[1] as string) as string[]
  const end = args.findIndex(arg => arg === '--import' || !arg.startsWith('--'))
  const flags = end === -1 ? args : args.slice(0, end)
  return flags
})()

/**
 * The environment of a service process run as the image runs it, on loopback, with the settings given;
 * on the embedded database (said explicitly, as production requires) unless they name DATABASE_URL.
 */
export function shippedEnvironment (settings: Record<string, string>): Record<string, string> {
  const database: Record<string, string> = settings.DATABASE_URL === undefined ? { DATABASE_EMBEDDED: 'true' } : {}
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...database, ...settings }
}

/** A process's resident memory in bytes (Linux /proc). */
export function rssBytes (pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}

/**
 * An app of bench/ (`plain-app`, `same-json-app`) as a user runs it: compiled to JavaScript, on node's
 * defaults. Type stripping at run time would load a compiler into its memory; this writes the
 * JavaScript to bench/results/ (where its imports resolve) and returns its path.
 */
export function appScript (name: 'plain-app' | 'same-json-app'): string {
  const dir = resolve(import.meta.dirname, 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}.mjs`)
  writeFileSync(file, stripTypeScriptTypes(readFileSync(resolve(import.meta.dirname, `${name}.ts`), 'utf8')))
  return file
}
