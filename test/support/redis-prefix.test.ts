// Tests on the shared Redis leave nothing behind: what they write under their uniqueRedisPrefix,
// expiring or not, is deleted when they end.
import t from 'tap'
import { Redis } from 'ioredis'
import { uniqueRedisPrefix } from '../helper.ts'
import { requireService } from './services.ts'

t.test('the keys under a test\'s Redis prefix are gone once the test ended', async t => {
  const url = requireService(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const raw = new Redis(url)
  t.teardown(() => raw.disconnect())
  let prefix = ''
  await t.test('a test that writes keys without expiry', async t => {
    prefix = uniqueRedisPrefix(t, url, 'redis-prefix')
    await raw.set(`${prefix}kept`, '1')
    await raw.hset(`${prefix}hash`, 'field', '1')
    t.equal(await raw.ttl(`${prefix}kept`), -1, 'no expiry')
  })
  t.equal(await raw.exists(`${prefix}kept`, `${prefix}hash`), 0, 'neither key is left')
})
