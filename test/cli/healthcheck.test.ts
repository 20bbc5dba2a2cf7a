import t from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { build } from '../helper.ts'
import { listening } from '../support/listening.ts'
import { closedPort } from '../support/closed-port.ts'
import { compiledEntry, withoutTestHooks } from '../support/compiled-service.ts'

const root = join(import.meta.dirname, '../..')

interface Outcome { status: number | null, stdout: string, stderr: string }

// Asynchronous on purpose: the server under test answers from this same process.
function run (command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise(resolve => {
    const child = spawn(...withoutTestHooks(command, args), { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => { stdout += chunk })
    child.stderr.on('data', chunk => { stderr += chunk })
    child.on('exit', status => resolve({ status, stdout, stderr }))
  })
}

async function runProbe (args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return await run(process.execPath, [await compiledEntry('src/cli/healthcheck.js'), ...args], env)
}

t.test('exit 0 when the probe answers 200, reading HOST and PORT like the server or --url', async t => {
  const app = await build(t)
  const port = await listening(app)
  // Each probe is a process of its own: they run side by side.
  const [byEnv, byUrl, wildcard] = await Promise.all([
    runProbe(['live'], { HOST: '127.0.0.1', PORT: String(port) }),
    runProbe(['live', '--url', `http://127.0.0.1:${port}`]),
    runProbe([], { HOST: '0.0.0.0', PORT: String(port) })
  ])
  t.equal(byEnv.status, 0, byEnv.stderr)
  t.match(byEnv.stdout, /\/health\/live: 200 Healthy/)
  t.equal(byUrl.status, 0)
  t.equal(wildcard.status, 0, 'no probe named means live; a wildcard bind is reached on loopback')
})

t.test('exit 1 when the probe answers 503 or nothing answers', async t => {
  const app = await build(t, { env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/none`, HEALTH_REFRESH_INTERVAL_MS: '200' } })
  const port = await listening(app)
  const [ready, startup, live, unreachable] = await Promise.all([
    runProbe(['ready', '--url', `http://127.0.0.1:${port}`]),
    runProbe(['startup', '--url', `http://127.0.0.1:${port}`]),
    runProbe(['live', '--url', `http://127.0.0.1:${port}`]),
    runProbe(['live', '--url', `http://127.0.0.1:${await closedPort()}`])
  ])
  t.equal(ready.status, 1, 'the database is down: not ready')
  t.match(ready.stdout, /\/health\/ready: 503/)
  t.equal(startup.status, 0, 'booted: the database gates readiness, never startup')
  t.equal(live.status, 0, 'yet alive')
  t.equal(unreachable.status, 1)
  t.match(unreachable.stdout, /unreachable \(ECONNREFUSED\)/)
})

t.test('exit 2 for usage errors only', async t => {
  const usages = [['deep'], ['live', '--bogus'], ['live', '--timeout', 'soon'], ['live', '--url', 'ftp://x'], ['live', 'ready']]
  const [badPort, ...results] = await Promise.all([runProbe(['live'], { PORT: 'eighty' }), ...usages.map(async args => await runProbe(args))])
  results.forEach((result, i) => {
    t.equal(result.status, 2, usages[i]!.join(' '))
    t.match(result.stderr, /usage: healthcheck/)
  })
  t.equal(badPort!.status, 2, 'a bad PORT setting is a usage error')
})

t.test('npm run healthcheck -- live runs the compiled probe', async t => {
  const app = await build(t)
  const port = await listening(app)
  const result = await run('npm', ['run', '--silent', 'healthcheck', '--', 'live'], { HOST: '127.0.0.1', PORT: String(port) })
  t.equal(result.status, 0, result.stderr)
  t.match(result.stdout, /\/health\/live: 200 Healthy/)
})
