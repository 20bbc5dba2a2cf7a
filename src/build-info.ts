import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** What was built and when this process started: GET /info and the build_info metric. */
export interface BuildInfo {
  version: string
  /** The source commit, or `unknown` when run from source or built outside git without SOURCE_COMMIT. */
  commit: string
  /** When this process started (ISO 8601). */
  startedAt: string
  runtime: { name: 'node', version: string }
}

function readJson (path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

function text (value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : 'unknown'
}

// Built: dist/build-info.json, written by `npm run build`. From source: the package's own version.
const here = import.meta.dirname
const built = readJson(join(here, '../build-info.json')) ?? { version: readJson(join(here, '../package.json'))?.version }

export const buildInfo: BuildInfo = Object.freeze({
  version: text(built.version),
  commit: text(built.commit),
  startedAt: new Date(performance.timeOrigin).toISOString(),
  runtime: Object.freeze({ name: 'node' as const, version: process.version })
})
