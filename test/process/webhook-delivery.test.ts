// Two instances on one PostgreSQL, a receiver that is down while events happen and one instance
// restarted meanwhile: once the receiver is back, every event reaches it, each subject's in order.
import t from 'tap'
import assert from 'node:assert/strict'
import { closedPort } from '../support/closed-port.ts'
import { eventually } from '../support/eventually.ts'
import { webhookInstances } from '../support/webhook-instances.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

t.test('a receiver down, then back, gets every event, in order per subject', async t => {
  const started = await webhookInstances(t, 2, {
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    WEBHOOK_RETRY_DELAY_SECONDS: '1',
    WEBHOOK_RETRY_DELAY_MAX_SECONDS: '2'
  })
  if (started === undefined) return
  const { instances: [first, second], send, startAnother } = started

  const port = await closedPort()
  const { segredo } = await send(first, '/webhooks', { url: `http://127.0.0.1:${port}/hook` })
  const vaga = await send(first, '/vagas', { titulo: 'Backend' })
  const candidatos = [
    await send(second, '/candidatos', { nome: 'Ana', email: 'ana@example.com' }),
    await send(first, '/candidatos', { nome: 'Bia', email: 'bia@example.com' })
  ]
  for (const [i, candidato] of candidatos.entries()) {
    await send(i === 0 ? first : second, `/candidatos/${candidato.id}/candidatar`, { vagaId: vaga.id })
    await send(i === 0 ? second : first, `/candidatos/${candidato.id}/aprovar`, {})
  }

  // The first instance stops and starts again while deliveries wait for their retries.
  first.child.kill('SIGTERM')
  await first.exited
  await startAnother()

  const receiver = await startReceiver(t, port)
  receiver.secret = segredo!
  const expected = 1 + 3 * candidatos.length
  await eventually(() => { assert.equal(new Set(receiver.deliveries.map(d => d.id)).size, expected) }, { timeout: 45_000 })
  t.ok(receiver.deliveries.every(d => d.verified), 'every delivery verifies')
  const firstArrivals = receiver.deliveries.filter((d, i) => receiver.deliveries.findIndex(other => other.id === d.id) === i)
  for (const candidato of candidatos) {
    t.same(firstArrivals.filter(d => d.payload.data.sujeito.id === candidato.id).map(d => d.payload.type),
      ['candidato.criado', 'candidato.candidatar', 'candidato.aprovar'], 'a candidato\'s events in order')
  }
  t.same(firstArrivals.filter(d => d.payload.data.sujeito.id === vaga.id).map(d => d.payload.type), ['vaga.criada'], 'and the vaga\'s')
})
