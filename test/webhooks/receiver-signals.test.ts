// What a receiver says about itself is heard: a 429 or 503 with Retry-After is waited out (in
// seconds or as an HTTP-date, at most WEBHOOK_RETRY_DELAY_MAX_SECONDS), and a 410 Gone disables its
// subscription at once (the Standard Webhooks convention).
import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'
import { API_POLL, eventually } from '../support/eventually.ts'
import { injectedApi, type InjectedApi } from '../support/injected-api.ts'
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.ts'

const SCOPES = 'vagas:read vagas:write webhooks:write'
// Short intervals: without Retry-After, a retry would come one to two seconds after its failure.
const FAST = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1' }

type Api = InjectedApi

async function serving (env: Record<string, string>, test: Test): Promise<Api> {
  const app: FastifyInstance = await build(test, { env: { ...FAST, ...env } })
  await app.health.lifecycle.reached('serving')
  return await injectedApi(app, SCOPES)
}

async function subscribe (api: Api, receiver: Receiver): Promise<string> {
  const { id, segredo } = await api.send<{ id: string, segredo: string }>('POST', '/api/v2/webhooks', { url: receiver.url, tipos: ['vaga.criada'] })
  receiver.secret = segredo
  return id
}

/** Answers in turn, then 204; records when each delivery arrived. */
function answering (receiver: Receiver, answers: Array<() => Answer>): number[] {
  const arrivals: number[] = []
  receiver.answer = () => {
    arrivals.push(Date.now())
    return (answers[arrivals.length - 1] ?? (() => ({ status: 204 })))()
  }
  return arrivals
}

t.test('a 429 or 503 with Retry-After is waited out, in seconds or as an HTTP-date', async t => {
  const api = await serving({}, t)
  const receiver = await startReceiver(t)
  const arrivals = answering(receiver, [
    // The batch's first attempt.
    () => ({ status: 429, headers: { 'retry-after': '3' } }),
    // The retry queue's attempt: a date at least three seconds away (HTTP-dates count whole seconds).
    () => ({ status: 503, headers: { 'retry-after': new Date(Date.now() + 4000).toUTCString() } })
  ])
  await subscribe(api, receiver)
  await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })

  await eventually(() => { assert.equal(receiver.deliveries.at(-1)?.answered, 204) })
  t.equal(receiver.deliveries.length, 3, 'three attempts: 429, 503, then the success')
  t.equal(new Set(receiver.deliveries.map(d => d.id)).size, 1, 'of one message')
  const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!)
  t.ok(gaps[0]! >= 3000, `the retry after the 429 came ${gaps[0]} ms later, not before its Retry-After of 3 s`)
  t.ok(gaps[1]! >= 3000, `the retry after the 503 came ${gaps[1]} ms later, not before its Retry-After date`)
})

t.test('a Retry-After past WEBHOOK_RETRY_DELAY_MAX_SECONDS waits that long only', async t => {
  const api = await serving({ WEBHOOK_RETRY_DELAY_MAX_SECONDS: '2' }, t)
  const receiver = await startReceiver(t)
  const arrivals = answering(receiver, [() => ({ status: 429, headers: { 'retry-after': '3600' } })])
  await subscribe(api, receiver)
  await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })

  await eventually(() => { assert.equal(receiver.deliveries.at(-1)?.answered, 204) }, { timeout: 30_000 })
  t.equal(receiver.deliveries.length, 2, 'retried once, and delivered')
  t.ok(arrivals[1]! - arrivals[0]! >= 1000, 'after the retry delay')
})

t.test('a 410 Gone disables the subscription at once', async t => {
  const api = await serving({}, t)
  // Gone at its first attempt (in a batch), and gone at a retry.
  const gone = await startReceiver(t)
  answering(gone, [() => ({ status: 410 })])
  const goneLater = await startReceiver(t)
  answering(goneLater, [() => ({ status: 500 }), () => ({ status: 410 })])
  const ids = [await subscribe(api, gone), await subscribe(api, goneLater)]
  await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })

  for (const [i, id] of ids.entries()) {
    // Far sooner than WEBHOOK_DISABLE_AFTER_SECONDS (five days by default).
    const webhook = await eventually(async () => {
      const webhook = await api.send<{ ativo: boolean, desativadoEm: string | null }>('GET', `/api/v2/webhooks/${id}`)
      assert.equal(webhook.ativo, false)
      return webhook
    }, API_POLL)
    t.match(webhook.desativadoEm, /^\d{4}-/, `subscription ${i + 1}: disabled, and it says when`)
  }
  const attempts = await api.send<{ items: Array<{ codigo: number }> }>('GET', `/api/v2/webhooks/${ids[1]}/tentativas`)
  t.same(attempts.items.map(a => a.codigo), [410, 500], 'each attempt listed, the 410 last')

  // A new event goes to neither: by the time another subscription has it, it was dispatched.
  const watcher = await startReceiver(t)
  await subscribe(api, watcher)
  await api.send('POST', '/api/v2/vagas', { titulo: 'Dados' })
  await eventually(() => { assert.ok(watcher.deliveries.some(d => (d.payload.data.dados as { titulo: string }).titulo === 'Dados')) })
  t.equal(gone.deliveries.length, 1, 'the gone receiver got nothing more')
  t.equal(goneLater.deliveries.length, 2, 'nor did the one gone at its retry')
})
