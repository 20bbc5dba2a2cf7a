import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { SHIPPED_NODE_FLAGS } from '../../bench/shipped-process.ts'
import { TEST_JWT_SECRET } from '../helper.ts'
import { compiledEntry, withoutTestHooks } from './compiled-service.ts'
import { eventually } from './eventually.ts'
import { freshDataDir } from './pglite-template.ts'

export interface ServerProcess {
  url: string
  child: ChildProcessWithoutNullStreams
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string | null>
  /** Every line the process wrote to stdout so far. */
  output: () => string
}

const root = join(import.meta.dirname, '../..')

interface Teardown { teardown: (fn: () => unknown) => void }

/**
 * Starts the service (src/server.ts, compiled: test/support/compiled-service.ts) as a real process on a
 * free port and waits until it listens; stopped at teardown. `nodeArgs` go before the entry point
 * (e.g. the tracing preload, by its compiledEntry path).
 */
export async function startServerProcess (t: Teardown, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServerProcess> {
  return await spawnServer(t, process.execPath, [...nodeArgs, await compiledEntry('src/server.js')], { NODE_ENV: 'test', ...env })
}

/** As startServerProcess, run through a launcher command such as `prlimit --nofile=1024:1024`. */
export async function startServerProcessUnder (t: Teardown, launcher: readonly string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const [command, ...args] = launcher
  return await spawnServer(t, command!, [...args, process.execPath, await compiledEntry('src/server.js')], { NODE_ENV: 'test', ...env })
}

/**
 * Starts the compiled service as the image starts it, on the Node.js binary given: the image's V8
 * flags, `NODE_ENV=production`, and `scripts/start.js`, which compiles when dist/ is stale and loads
 * the tracing preload first.
 */
export async function startBuiltServerProcess (t: Teardown, node: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const database: Record<string, string> = env.DATABASE_URL === undefined ? { DATABASE_EMBEDDED: 'true' } : {}
  return await spawnServer(t, node, [...SHIPPED_NODE_FLAGS, 'scripts/start.js'], { NODE_ENV: 'production', ...database, ...env })
}

async function spawnServer (t: Teardown, node: string, args: string[], env: Record<string, string>): Promise<ServerProcess> {
  const dataDir = await freshDataDir(t)
  const child = spawn(...withoutTestHooks(node, args), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: dataDir,
      // As in every test app: no load shedding caused by a busy test machine.
      SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env
    },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let out = ''
  child.stdout.on('data', chunk => { out += chunk })
  child.stderr.on('data', chunk => { out += chunk })
  const exited = new Promise<number | string | null>(resolve => child.on('exit', (code, signal) => resolve(code ?? signal)))
  // Stopped as an orchestrator stops it, so it stops its embedded database before its DATA_DIR is removed;
  // killed if it does not exit in time.
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000)
    await exited
    clearTimeout(kill)
  })
  const url = await new Promise<string>((resolve, reject) => {
    // A bound generous for a busy machine (a start takes seconds there); a server that never listens still fails.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 90_000)
    child.stdout.on('data', () => {
      const match = /listening at (https?:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match !== null) { clearTimeout(timer); resolve(match[1]!) }
    })
    exited.then(code => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${out}`)) }, () => {})
  })
  return { url, child, exited, output: () => out }
}

/** Waits until the server's readiness answers 200. */
export async function untilReady (url: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const status = (await fetch(`${url}/health/ready`)).status
    if (status !== 200) throw new Error(`the server never became ready: readiness answers ${status}`)
  }, { timeout: timeoutMs, interval: 100 })
}
