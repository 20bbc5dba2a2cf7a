import t from 'tap'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshDataDir } from '../support/pglite-template.ts'

/** A small file system of its own (tmpfs), so filling it touches nothing else; undefined where mounting is not allowed. */
function smallFileSystem (t: { teardown: (fn: () => unknown) => void }, megabytes: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'recrutamento-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' })
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

function freeBytes (dir: string): number {
  const stats = statfsSync(dir)
  return stats.bavail * stats.bsize
}

t.test('a full disk under the embedded database: 503 StorageFull with nothing stored, reads served, readiness Degraded, one log line each way', async t => {
  const volume = smallFileSystem(t, 80)
  if (volume === undefined) return t.skip('mounting a tmpfs needs root', () => {})
  const lines: Array<Record<string, unknown>> = []
  const app = await build(t, {
    ownDatabaseProcess: true, // its database's files on the small file system
    env: { DATA_DIR: await freshDataDir(t, volume), RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info', HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0' },
    logStream: { write: line => { lines.push(JSON.parse(line)) } }
  })
  await app.health.lifecycle.reached('serving')
  const auth = await bearer({ scope: 'candidatos:read candidatos:write health:read' })
  const create = (n: number) => app.inject({ method: 'POST', url: '/api/v2/candidatos', headers: auth, payload: { nome: 'n'.repeat(190), email: `cheio-${n}-${'e'.repeat(200)}@example.com` } })

  const filler = join(volume, 'filler')
  writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(volume) - 2 * 1024 * 1024)))
  let created = 0
  let refused
  for (let n = 0; n < 20_000 && refused === undefined; n++) {
    const answer = await create(n)
    if (answer.statusCode === 201) created++
    else refused = answer
  }
  assert(refused !== undefined, 'the disk filled up')
  t.equal(refused.statusCode, 503)
  t.match(refused.headers['content-type'], /^application\/problem\+json/)
  t.equal(refused.headers['retry-after'], '5')
  t.match(refused.json(), { code: 'StorageFull', status: 503 })
  for (let n = 0; n < 20; n++) t.not((await create(100_000 + n)).statusCode, 500, 'never a 500')

  const list = await app.inject({ url: '/api/v1/candidatos?limit=1', headers: auth })
  t.equal(list.statusCode, 200, 'reads are served')
  const stored = list.json().total as number
  t.ok(stored >= created && stored <= created + 20, `what was stored is what was answered 201 (${created} before the first 503)`)
  await eventually(async () => {
    const ready = await app.inject('/health/ready')
    assert.equal(ready.statusCode, 200)
    assert.equal(ready.json().status, 'Degraded')
  })
  t.match((await app.inject({ url: '/health/deep', headers: auth })).json(), { status: 'Degraded', checks: { database: { status: 'Degraded', details: { kind: 'pglite', storage: 'full', fullSince: String } } } })

  rmSync(filler)
  let n = 200_000
  await eventually(async () => {
    assert.equal((await create(n++)).statusCode, 201, 'with room again, changes are stored')
    assert.equal((await app.inject('/health/ready')).json().status, 'Healthy')
  }, { interval: 500 })
  t.same(lines.filter(line => /storage/.test(String(line.msg))).map(line => line.msg), [
    'database storage full: changes answer 503 StorageFull until there is room again',
    'database storage has room again: changes are stored'
  ], 'one line as the disk fills, one as it has room again')
  t.same(lines.filter(line => line.level as number >= 50), [], 'no error lines, so no stacks')
})
