// /metrics carries the deliveries' figures: attempts by outcome, the queue's jobs by state, and how
// long the oldest due one has waited; promtool accepts them.
import t from 'tap'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { bearer, build } from '../helper.ts'
import { API_POLL, eventually } from '../support/eventually.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

t.test('attempts by outcome, jobs waiting and retrying, the oldest due one\'s age', async t => {
  // The retry after the failure waits an hour: it stays in the queue, retrying, and not due.
  const app = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '3600' } })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: 'vagas:read vagas:write webhooks:write metrics:read' })
  const receiver = await startReceiver(t)
  receiver.answer = () => ({ status: 500 })
  const subscribed = await app.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: receiver.url } })
  assert.equal(subscribed.statusCode, 201, subscribed.body)
  const healthy = await startReceiver(t)
  assert.equal((await app.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: healthy.url } })).statusCode, 201)
  assert.equal((await app.inject({ method: 'POST', url: '/api/v2/vagas', headers, payload: { titulo: 'Backend' } })).statusCode, 201)

  // The retry is queued before the batch that made both attempts has counted them: wait for all three.
  const text = await eventually(async () => {
    const res = await app.inject({ url: '/metrics', headers })
    assert.equal(res.statusCode, 200)
    assert.match(res.body, /^webhook_queue_jobs\{queue="webhook-deliveries",state="retrying"\} 1$/m)
    assert.match(res.body, /^webhook_delivery_attempts_total\{outcome="status"\} 1$/m, 'the failed attempt, by why it failed')
    assert.match(res.body, /^webhook_delivery_attempts_total\{outcome="success"\} 1$/m, 'the other receiver\'s success')
    return res.body
  }, API_POLL)
  t.pass('the failed attempt counted by why it failed, the other receiver\'s success, and the retry queued')
  t.match(text, /^webhook_queue_jobs\{queue="webhook-deliveries",state="waiting"\} 0$/m, 'nothing waiting')
  t.match(text, /^webhook_queue_jobs\{queue="webhook-batches",state="active"\} \d+$/m, 'every state of each queue is there')
  t.match(text, /^webhook_queue_oldest_due_seconds\{queue="webhook-deliveries"\} 0$/m, 'the retry is not due: nothing has waited')

  if (spawnSync('promtool', ['--version']).status !== 0) {
    if (process.env.CI === 'true') t.fail('promtool is not installed: CI must lint the metrics')
    else t.comment('NOTICE: promtool is not installed (Debian package prometheus); skipping the lint')
    return
  }
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
  t.equal(lint.status, 0, `promtool check metrics: ${lint.stdout}${lint.stderr}`)
})
