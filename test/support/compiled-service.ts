import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'

// Tests that start the service or a CLI as a process run the compiled JavaScript, as the image does:
// what they test is what ships. scripts/compile.js compiles dist/ only when it is older than the
// sources, one test process at a time; the others then find it up to date.

const root = join(import.meta.dirname, '../..')
let compiled: Promise<unknown> | undefined

/** The absolute path of `entry` (a source path with `.js`, e.g. 'src/server.js') in dist/, compiled first when stale. */
export async function compiledEntry (entry: string): Promise<string> {
  compiled ??= promisify(execFile)(process.execPath, ['scripts/compile.js'], { cwd: root })
  await compiled
  return join(root, 'dist', entry)
}

/**
 * `command` and `args` as a spawn's command and arguments that run it without the test runner's hooks.
 * tap adds its process tracking to the NODE_OPTIONS of every child process, whatever environment the
 * spawn names, and it costs a service process most of a second of start-up; `env -u` takes it out.
 */
export function withoutTestHooks (command: string, args: readonly string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', command, ...args]]
}
