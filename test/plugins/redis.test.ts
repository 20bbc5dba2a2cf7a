import t from 'tap'
import { build, serviceUrl, uniqueRedisPrefix } from '../helper.ts'
import { closedPort } from '../support/closed-port.ts'

t.test('without REDIS_URL the decorator is null', async t => {
  const app = await build(t)
  t.equal(app.redis, null)
})

t.test('with REDIS_URL the shared client works, prefixes keys, and is closed with the app', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const prefix = uniqueRedisPrefix(t, url, 'redis-plugin')
  // About the client, not faults: a busy test machine may hold an answer past the 100 ms default.
  const app = await build(t, { env: { REDIS_URL: url, REDIS_KEY_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '5000' } })
  t.ok(app.redis)
  await app.redis!.set('greeting', 'olá', 'EX', 30)
  t.equal(await app.redis!.get('greeting'), 'olá')
  const { Redis } = await import('ioredis')
  const raw = new Redis(url)
  t.teardown(() => raw.disconnect())
  t.equal(await raw.get(`${prefix}greeting`), 'olá', 'the key is stored under the prefix')
  await app.close()
  await t.rejects(app.redis!.get('greeting'), /Connection is closed/, 'closing the app closes the client')
})

t.test('Redis down: the app starts, commands reject quickly, nothing crashes, close is quick', async t => {
  const port = await closedPort()
  const lines: string[] = []
  const app = await build(t, { env: { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'warn' }, logStream: { write: line => { lines.push(line) } } })
  const started = Date.now()
  await t.rejects(app.redis!.get('anything'))
  t.ok(Date.now() - started < 5_000, 'the command fails within seconds')
  t.equal((await app.inject({ method: 'GET', url: '/ping' })).statusCode, 200, 'the service still answers')
  const closing = Date.now()
  await app.close()
  const closeMs = Date.now() - closing
  // Against the same app without Redis, closed just after: closing its database takes a while on a
  // slow or throttled machine, and both pay it. A connection that waits on a dead Redis would hold
  // close for its whole connect timeout (10 s) and more.
  const withoutRedis = await build(t, { env: { LOG_LEVEL: 'warn' } })
  const referenceClosing = Date.now()
  await withoutRedis.close()
  const referenceMs = Date.now() - referenceClosing
  t.ok(closeMs < referenceMs + 4_000, `shutdown is not held by the dead connection (${closeMs} ms, ${referenceMs} ms without Redis)`)
  const warnings = lines.filter(line => line.includes('redis is unreachable'))
  t.equal(warnings.length, 1, 'one warning, not one per retry')
  t.notMatch(warnings[0], /127\.0\.0\.1/, 'the warning names no host')
})
