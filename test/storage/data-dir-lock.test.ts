import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { lockDataDir } from '../../src/storage/data-dir-lock.ts'
import { startEmbeddedDatabase } from '../../src/storage/embedded-database.ts'

test('a lock held on another host is never taken over: two containers sharing a volume are both pid 1', async t => {
  const dir = t.testdir()
  const path = join(dir, 'pglite.lock')
  writeFileSync(path, `${process.pid} another-host\n`)
  t.throws(() => lockDataDir(path, dir), { name: 'DataDirError', message: /locked by process \d+ on host another-host/ })
})

test('a lock of this host whose process is gone is stale and taken over, and released', async t => {
  const dir = t.testdir()
  const path = join(dir, 'pglite.lock')
  writeFileSync(path, `999999999 ${hostname()}\n`)
  const release = lockDataDir(path, dir)
  t.ok(existsSync(path))
  release()
  t.notOk(existsSync(path), 'released')
})

test('a DATA_DIR too long for a Unix socket path is refused with one clear line', async t => {
  const dir = join(t.testdir(), 'x'.repeat(120))
  mkdirSync(dir, { recursive: true })
  t.throws(() => startEmbeddedDatabase(dir), { name: 'DataDirError', message: /too long a path/ })
})
