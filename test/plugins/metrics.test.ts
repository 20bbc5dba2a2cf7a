import t from 'tap'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'

function promtoolAvailable (): boolean {
  return spawnSync('promtool', ['--version']).status === 0
}

t.test('GET /metrics needs metrics:read', async t => {
  const app = await build(t)
  t.equal((await app.inject('/metrics')).statusCode, 401)
  t.equal((await app.inject({ url: '/metrics', headers: await bearer({ scope: 'health:read' }) })).statusCode, 403)
  const res = await app.inject({ url: '/metrics', headers: await bearer({ scope: 'metrics:read' }) })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  t.equal(res.headers['cache-control'], 'no-store')
  const head = await app.inject({ method: 'HEAD', url: '/metrics', headers: await bearer({ scope: 'metrics:read' }) })
  t.equal(head.statusCode, 200)
})

t.test('request durations by route pattern and status; probes stay out; health gauges; process metrics', async t => {
  const app = await build(t, {
    env: { HEALTH_REFRESH_INTERVAL_MS: '200' },
    extraRoutes: scope => {
      scope.get('/widgets/:id', async () => ({ ok: true }))
    }
  })
  // The embedded database opens in the background (several seconds on a busy machine): wait for that
  // event, then for the refresh it triggers.
  await app.storage.whenReady()
  await eventually(async () => {
    const ready = await app.inject('/health/ready')
    assert.equal(ready.statusCode, 200, `waiting for readiness: ${ready.body}`)
  }, { interval: 50 })
  for (const id of ['a1', 'b2', 'c3']) await app.inject(`/widgets/${id}`)
  for (let i = 0; i < 5; i++) {
    await app.inject('/ping')
    await app.inject('/health/ready')
    await app.inject('/health/live')
  }
  const res = await app.inject({ url: '/metrics', headers: await bearer({ scope: 'metrics:read' }) })
  const text = res.body
  t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/widgets\/:id",status_code="200"\} 3/)
  t.notMatch(text, /widgets\/a1/, 'raw URLs never become labels')
  t.notMatch(text, /route="\/ping"|route="\/health\/ready"|route="\/health\/live"/, 'probes are not in the request histogram')
  t.match(text, /health_check_status\{check="database",status="Healthy"\} 1/)
  t.match(text, /health_check_latency_seconds\{check="database"\} \d/)
  t.match(text, /health_ready 1/)
  t.match(text, /process_cpu_seconds_total/)
  t.match(text, /nodejs_eventloop_lag_seconds/)

  if (!promtoolAvailable()) {
    if (process.env.CI === 'true') t.fail('promtool is not installed: CI must lint the metrics')
    else t.comment('NOTICE: promtool is not installed (Debian package prometheus); skipping the lint')
    return
  }
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
  t.equal(lint.status, 0, `promtool check metrics: ${lint.stdout}${lint.stderr}`)
})

t.test('two apps in one process keep separate metrics', async t => {
  const first = await build(t)
  const second = await build(t)
  const headers = await bearer({ scope: 'metrics:read' })
  t.equal((await first.inject({ url: '/metrics', headers })).statusCode, 200)
  t.equal((await second.inject({ url: '/metrics', headers })).statusCode, 200)
})
