import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { TEST_JWT_SECRET } from '../helper.ts'
import { freshDataDir } from '../support/pglite-template.ts'
import { compiledEntry, withoutTestHooks } from '../support/compiled-service.ts'
import { startServerProcess } from '../support/server-process.ts'

const root = join(import.meta.dirname, '../..')

/** Runs the service until it exits; its output lines, exit code, and the processes left on its DATA_DIR. */
async function startUntilExit (dataDir: string, env: Record<string, string>): Promise<{ lines: string[], code: number | null, leftBehind: string }> {
  const child = spawn(...withoutTestHooks(process.execPath, [await compiledEntry('src/server.js')]), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', AUTH_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  child.stdout.on('data', chunk => { out += chunk })
  child.stderr.on('data', chunk => { out += chunk })
  const [code] = await once(child, 'exit') as [number | null]
  let leftBehind = ''
  try {
    leftBehind = execFileSync('pgrep', ['-af', dataDir], { encoding: 'utf8' })
  } catch {} // pgrep exits 1 when nothing matches
  return { lines: out.split('\n').filter(line => line !== ''), code, leftBehind }
}

/** The lines that are not an ordinary start's (info and below). */
function failureLines (lines: string[]): string[] {
  return lines.filter(line => !line.startsWith('{') || (JSON.parse(line) as { level: number }).level > 30)
}

t.test('a port in use: one line naming the setting and the cause, exit 1, and no database process left', async t => {
  const taken = createServer()
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { taken.close() })
  const { port } = taken.address() as { port: number }
  const dataDir = await freshDataDir(t)
  const { lines, code, leftBehind } = await startUntilExit(dataDir, { PORT: String(port) })
  t.equal(code, 1)
  const failures = failureLines(lines)
  t.equal(failures.length, 1, `one line: ${failures.join('\n')}`)
  t.match(JSON.parse(failures[0] ?? '{}'), { level: 60, code: 'EADDRINUSE', msg: `cannot listen on 127.0.0.1:${port} (HOST, PORT): the port is in use by another process` })
  t.equal(leftBehind, '', 'the embedded database process stopped with the service')
})

t.test('a management or gRPC port in use: one line naming the settings, exit 1, and no database process left', async t => {
  const taken = createServer()
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { taken.close() })
  const { port } = taken.address() as { port: number }
  for (const [env, settings] of [[{ MANAGEMENT_PORT: String(port) }, 'MANAGEMENT_HOST, MANAGEMENT_PORT'], [{ GRPC_PORT: String(port) }, 'HOST, GRPC_PORT']] as const) {
    const dataDir = await freshDataDir(t)
    const { lines, code, leftBehind } = await startUntilExit(dataDir, { PORT: '0', ...env })
    t.equal(code, 1, settings)
    const failures = failureLines(lines)
    t.equal(failures.length, 1, `one line: ${failures.join('\n')}`)
    t.equal(failures[0], `cannot listen on 127.0.0.1:${port} (${settings}): the port is in use by another process`)
    t.equal(leftBehind, '', 'the embedded database process stopped with the service')
  }
})

t.test('a host that does not resolve: one line, exit 1', async t => {
  const { lines, code } = await startUntilExit(await freshDataDir(t), { HOST: '999.1.1.1' })
  t.equal(code, 1)
  const failures = failureLines(lines)
  t.equal(failures.length, 1, `one line: ${failures.join('\n')}`)
  t.match(failures[0], /cannot listen on 999\.1\.1\.1:3000 \(HOST, PORT\)/)
})

t.test('a setting that is wrong or missing: one line on stderr, exit 1', async t => {
  const dataDir = await freshDataDir(t)
  for (const [env, expected] of [
    [{ PORT: 'eighty' }, /^Invalid setting PORT="eighty": expected an integer port from 0 to 65535$/],
    [{ NODE_ENV: 'production' }, /^NODE_ENV=production needs DATABASE_URL, or DATABASE_EMBEDDED=true/],
    [{ NODE_ENV: 'production', DATABSE_URL: 'postgres://db/x' }, /^Unknown settings that look like this service's: DATABSE_URL \(DATABASE_URL\?\)/]
  ] as Array<[Record<string, string>, RegExp]>) {
    const { lines, code } = await startUntilExit(dataDir, env)
    t.equal(code, 1, JSON.stringify(env))
    t.equal(lines.length, 1, `one line: ${lines.join('\n')}`)
    t.match(lines[0], expected)
  }
})

t.test('outside production, a setting that looks like one of ours is one warning line at start, naming the one meant', async t => {
  const server = await startServerProcess(t, { DATABSE_URL: 'postgres://db/x' })
  const warnings = server.output().split('\n').filter(line => line.includes('unknown settings'))
  t.equal(warnings.length, 1)
  t.match(JSON.parse(warnings[0] ?? '{}'), { level: 40, unknownSettings: [{ name: 'DATABSE_URL', meant: 'DATABASE_URL' }], msg: "unknown settings that look like this service's, ignored: DATABSE_URL (DATABASE_URL?)" })
})
