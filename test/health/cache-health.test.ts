import t from 'tap'
import assert from 'node:assert/strict'
import { bearer, build, uniqueRedisPrefix } from '../helper.ts'
import { requireService } from '../support/services.ts'
import { forwardedService } from '../support/tcp-forwarder.ts'
import { eventually } from '../support/eventually.ts'

t.test('without REDIS_URL there is no cache check', async t => {
  const app = await build(t)
  t.notOk(app.health.has('cache'))
})

t.test('Redis lost: ready stays 200 as Degraded with checks.cache not Healthy; back: Healthy', async t => {
  const url = requireService(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const { proxy, url: viaProxy } = await forwardedService(t, url, 6379)
  const app = await build(t, { env: { REDIS_URL: viaProxy, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'cache-health'), HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0' } })
  const until = async (status: string): Promise<void> => {
    await eventually(async () => { assert.equal((await app.inject('/health/ready')).json().status, status, `waiting for ready ${status}`) }, { timeout: 15_000, interval: 100 })
  }
  await until('Healthy')
  t.equal((await app.inject('/health/ready')).json().checks.cache, 'Healthy')
  const one = await app.inject({ url: '/health/cache', headers: await bearer({ scope: 'health:read' }) })
  t.match(one.json(), { name: 'cache', status: 'Healthy', latencyMs: Number })

  await proxy.down()
  await until('Degraded')
  const degraded = await app.inject('/health/ready')
  t.equal(degraded.statusCode, 200, 'a lost cache does not take the instance out of rotation')
  t.not(degraded.json().checks.cache, 'Healthy')
  t.notMatch(degraded.body, /127\.0\.0\.1|ECONNREFUSED|redis:/)

  await proxy.up()
  await until('Healthy')
  t.pass('recovered')
})
