// An instance killed (SIGKILL) while its deliveries wait for the receiver's answer: a new instance on
// the same database delivers every event at least once, those lost in flight included.
import t from 'tap'
import assert from 'node:assert/strict'
import { eventually } from '../support/eventually.ts'
import { webhookInstances } from '../support/webhook-instances.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

const CANDIDATOS = 4

t.test('an instance killed mid-delivery: a new one delivers every event', async t => {
  const started = await webhookInstances(t, 1, {
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    // Long enough that the held deliveries still wait when the kill comes on a busy machine; with the
    // database deadlines, it bounds how long an attempt can take, after which a lost one is retried.
    WEBHOOK_TIMEOUT_MS: '4000',
    DATABASE_POOL_TIMEOUT_MS: '1000',
    DATABASE_STATEMENT_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_DELAY_SECONDS: '1',
    WEBHOOK_RETRY_DELAY_MAX_SECONDS: '2'
  })
  if (started === undefined) return
  const { instances: [killed], send, startAnother } = started

  const receiver = await startReceiver(t)
  let answer!: () => void
  const answering = new Promise<void>(resolve => { answer = resolve })
  receiver.answer = async () => { await answering; return { status: 204 } }
  receiver.secret = (await send(killed, '/webhooks', { url: receiver.url })).segredo!
  const vaga = await send(killed, '/vagas', { titulo: 'Backend' })
  for (let i = 0; i < CANDIDATOS; i++) {
    const candidato = await send(killed, '/candidatos', { nome: `C${i}`, email: `c${i}@example.com` })
    await send(killed, `/candidatos/${candidato.id}/candidatar`, { vagaId: vaga.id })
  }
  const events = 1 + 2 * CANDIDATOS

  // The first deliveries reach the receiver and wait there for its answer; the later ones wait behind them.
  const held = await eventually(() => {
    const pending = receiver.deliveries.filter(d => d.pending)
    assert.ok(pending.length > 0)
    return pending
  })
  t.ok(held.length < events, `${held.length} deliveries in flight and the others queued when the instance is killed`)
  killed.child.kill('SIGKILL')
  await killed.exited
  await eventually(() => { assert.ok(held.every(d => !d.pending)) })
  t.ok(held.every(d => d.answered === undefined), 'the kill ended them unanswered')

  answer()
  await startAnother()
  const answeredEvents = (): Set<number> => new Set(receiver.deliveries.filter(d => d.answered === 204).map(d => d.payload.data.id))
  // Within the attempt's limit and a few looks for lost attempts; pg-boss's default, a look a minute, is too late.
  await eventually(() => { assert.equal(answeredEvents().size, events) }, { timeout: 45_000 })
  t.ok(held.every(d => answeredEvents().has(d.payload.data.id)), 'the deliveries lost in flight came again')
  t.ok(receiver.deliveries.every(d => d.verified), 'every delivery verifies')
})
