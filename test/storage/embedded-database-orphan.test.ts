import t from 'tap'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { bearer } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshDataDir } from '../support/pglite-template.ts'
import { embeddedDatabasePid } from '../support/embedded-database.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'

t.test('a database process that outlived its killed service never serves beside its successor\'s', async t => {
  const dataDir = await freshDataDir(t)
  const first = await startServerProcess(t, { DATA_DIR: dataDir })
  await untilReady(first.url, 60_000)
  const orphan = embeddedDatabasePid(first.child.pid!)
  // Frozen while its service is killed, as a stuck process or a paused container would be.
  process.kill(orphan, 'SIGSTOP')
  t.teardown(() => { try { process.kill(orphan, 'SIGKILL') } catch {} })
  first.child.kill('SIGKILL')
  await first.exited

  const second = await startServerProcess(t, { DATA_DIR: dataDir })
  t.equal((await fetch(`${second.url}/health/ready`)).status, 503, 'not ready while the old database process holds the directory')
  process.kill(orphan, 'SIGCONT')
  // Resumed, it finds its service gone and stops; the successor's own database process then serves.
  await untilReady(second.url, 60_000)
  t.ok(existsSync(join(dataDir, '.s.PGSQL.5432')), 'the socket file is there')
  const headers = await bearer({ scope: 'vagas:read vagas:write' })
  const statuses = new Map<number, number>()
  for (let round = 0; round < 10; round++) {
    const answers = await Promise.all(Array.from({ length: 20 }, async () => (await fetch(`${second.url}/api/v2/vagas?limit=1`, { headers })).status))
    for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1)
  }
  t.same(Object.fromEntries(statuses), { 200: 200 }, 'every request answered from the database')
  await eventually(async () => { assert.equal((await fetch(`${second.url}/health/ready`)).status, 200) }, { timeout: 10_000 })
})
