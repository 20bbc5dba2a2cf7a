import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { Test } from 'tap'
import { closedPort } from './closed-port.ts'
import { eventually } from './eventually.ts'

/**
 * A PgBouncer of the test's own on a free loopback port, in front of the PostgreSQL database at
 * `databaseUrl`, in the `pool_mode` given; ended at teardown. Returns the URL that reaches the
 * database through it; without Debian's pgbouncer package, undefined after a visible skip (a failure
 * under CI, whose .ci/run installs it).
 */
export async function startOwnPgBouncer (t: Test, databaseUrl: string, poolMode: 'transaction' | 'session'): Promise<string | undefined> {
  const binary = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find(path => existsSync(path))
  if (binary === undefined) {
    if (process.env.CI === 'true') t.fail('pgbouncer is missing; .ci/run installs the Debian pgbouncer package')
    else t.comment('NOTICE: pgbouncer is not installed (apt-get install -y pgbouncer); skipping the test that needs it')
    return undefined
  }
  const target = new URL(databaseUrl)
  const database = target.pathname.slice(1)
  const port = await closedPort()
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'))
  chmodSync(dir, 0o777) // it drops root for the postgres user, which writes its log here
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n')
  writeFileSync(join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    `pool_mode = ${poolMode}`,
    'default_pool_size = 4',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    'ignore_startup_parameters = extra_float_digits',
    ''
  ].join('\n'))
  // PgBouncer will not run as root: as root, it is told to become the postgres user.
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
  const child = spawn(binary, [...asUser, join(dir, 'pgbouncer.ini')], { stdio: 'ignore' })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise(resolve => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`
  await eventually(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.end()
  }, { timeout: 15_000, interval: 100 })
  return url
}
