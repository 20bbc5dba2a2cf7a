import t from 'tap'
import { build, serviceUrl, uniqueRedisPrefix } from '../helper.ts'

t.test('a start with Redis up raises no alarm: no outage logged, Healthy on its first ready answer', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const lines: string[] = []
  const app = await build(t, {
    env: { REDIS_URL: url, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'redis-cold-start'), LOG_LEVEL: 'info' },
    logStream: { write: line => { lines.push(line) } }
  })
  await app.health.lifecycle.reached('serving')
  const ready = await app.inject({ method: 'GET', url: '/health/ready' })
  t.equal(ready.statusCode, 200)
  t.match(ready.json(), { status: 'Healthy', checks: { cache: 'Healthy' } }, 'cache Healthy from the first answer')
  const alarms = lines.filter(line => /redis is unreachable|redis connection restored/.test(line))
  t.same(alarms, [], 'neither an outage nor a recovery is logged')
})
