// Two instances on one PostgreSQL, both dispatching and delivering. A healthy receiver gets each event
// exactly once; a receiver refusing connections until its subscription's deliveries have moved to the
// failing lane gets every event once it is back, each subject's in order, though later events of a
// subject came while earlier ones waited for retries.
import t from 'tap'
import assert from 'node:assert/strict'
import pg from 'pg'
import { FAILING_LANE } from '../../src/webhooks/delivery-queue.ts'
import { BATCH_QUEUE, DELIVERY_QUEUE } from '../../src/webhooks/queue-names.ts'
import { closedPort } from '../support/closed-port.ts'
import { API_POLL, eventually } from '../support/eventually.ts'
import { webhookInstances } from '../support/webhook-instances.ts'
import { startReceiver, type Delivery } from '../support/webhook-receiver.ts'

/** Each event's first arrival, in arrival order. */
function firstArrivals (deliveries: readonly Delivery[]): Delivery[] {
  return deliveries.filter((d, i) => deliveries.findIndex(other => other.id === d.id) === i)
}

t.test('two instances delivering', async t => {
  const started = await webhookInstances(t, 2, {
    WEBHOOK_DISPATCH_INTERVAL_MS: '100',
    // The defaults' schedule, scaled down: retries double from a second up to 8 s.
    WEBHOOK_RETRY_DELAY_SECONDS: '1',
    WEBHOOK_RETRY_DELAY_MAX_SECONDS: '8',
    WEBHOOK_TIMEOUT_MS: '10000'
  })
  if (started === undefined) return
  const { instances, send, databaseUrl } = started
  // Requests alternate between the instances.
  let turn = 0
  const next = (): { url: string } => instances[turn++ % instances.length]!
  const database = new pg.Client({ connectionString: databaseUrl })
  await database.connect()
  t.teardown(() => database.end())

  t.test('a healthy receiver gets each event exactly once', async t => {
    const receiver = await startReceiver(t)
    const webhook = await send(next(), '/webhooks', { url: receiver.url })
    receiver.secret = webhook.segredo!
    const vaga = await send(next(), '/vagas', { titulo: 'Backend' })
    const candidatos = 20
    await Promise.all(Array.from({ length: candidatos }, async (_, i) => {
      const candidato = await send(next(), '/candidatos', { nome: `C${i}`, email: `c${i}@example.com` })
      await send(next(), `/candidatos/${candidato.id}/candidatar`, { vagaId: vaga.id })
      await send(next(), `/candidatos/${candidato.id}/aprovar`, {})
    }))
    const events = 1 + 3 * candidatos

    await eventually(() => { assert.equal(new Set(receiver.deliveries.map(d => d.id)).size, events) })
    // Then nothing is left to send: every batch and delivery queued for it has completed.
    await eventually(async () => {
      const { rows: [queued] } = await database.query<{ jobs: number, unfinished: number }>(`select count(*)::int as jobs,
        (count(*) filter (where state <> 'completed'))::int as unfinished from webhook_jobs.job where name = any($1) and data->>'webhookId' = $2`, [[BATCH_QUEUE, DELIVERY_QUEUE], webhook.id])
      assert.ok(queued!.jobs > 0 && queued!.unfinished === 0, `${queued!.unfinished} of ${queued!.jobs} jobs unfinished`)
    })
    t.equal(receiver.deliveries.length, events, 'no event was sent twice')
    t.ok(receiver.deliveries.every(d => d.verified), 'every delivery verifies')
    await send(next(), `/webhooks/${webhook.id}`, undefined, 'DELETE')
  })

  t.test('a receiver down until its deliveries are in the failing lane gets every event once back, in order per subject', async t => {
    const port = await closedPort()
    const webhook = await send(next(), '/webhooks', { url: `http://127.0.0.1:${port}/hook` })
    const vagas = [await send(next(), '/vagas', { titulo: 'Backend' })]
    const downSince = Date.now()
    vagas.push(await send(next(), '/vagas', { titulo: 'Dados' }))
    const candidatos = await Promise.all(['Ana', 'Bia', 'Caio', 'Duda'].map(async (nome, i) => {
      const candidato = await send(next(), '/candidatos', { nome, email: `${nome.toLowerCase()}@example.com` })
      await send(next(), `/candidatos/${candidato.id}/candidatar`, { vagaId: vagas[i % vagas.length]!.id })
      return candidato
    }))
    // The subjects' later events come while their earlier ones wait for a retry.
    await eventually(async () => {
      const { items } = await send<{ items: Array<{ numero: number }> }>(next(), `/webhooks/${webhook.id}/tentativas`, undefined, 'GET')
      assert.ok(items.some(attempt => attempt.numero >= 2))
    }, API_POLL)
    for (const vaga of vagas) {
      await send(next(), `/vagas/${vaga.id}`, { titulo: 'Sênior' }, 'PATCH')
      await send(next(), `/vagas/${vaga.id}`, { titulo: 'Pleno' }, 'PATCH')
    }
    for (const candidato of candidatos) await send(next(), `/candidatos/${candidato.id}/aprovar`, {})
    const expected = new Map([...vagas.map(v => [v.id, 3] as const), ...candidatos.map(c => [c.id, 3] as const)])

    // The outage lasts until the subscription has failed long enough for its deliveries to move to the
    // failing lane (failingAfterSeconds: three retry delays and two timeouts, with these settings).
    await eventually(async () => {
      const { rows: [moved] } = await database.query<{ jobs: number }>(`select count(*)::int as jobs from webhook_jobs.job
        where name = $1 and group_id = $2 and priority = $3`, [DELIVERY_QUEUE, webhook.id, FAILING_LANE])
      assert.ok(moved!.jobs > 0, 'no delivery in the failing lane yet')
    }, { timeout: 90_000, interval: 250 })
    t.pass(`the subscription's deliveries moved to the failing lane ${Math.round((Date.now() - downSince) / 1000)} s into the outage`)
    const receiver = await startReceiver(t, port)
    receiver.secret = webhook.segredo!
    const total = [...expected.values()].reduce((sum, n) => sum + n, 0)
    await eventually(() => { assert.equal(new Set(receiver.deliveries.map(d => d.id)).size, total) }, { timeout: 45_000 })
    t.ok(receiver.deliveries.every(d => d.verified), 'every delivery verifies')
    const arrivals = firstArrivals(receiver.deliveries)
    for (const [subject, count] of expected) {
      const ids = arrivals.filter(d => d.payload.data.sujeito.id === subject).map(d => d.payload.data.id)
      t.equal(ids.length, count, `every event of ${subject} arrived`)
      t.same(ids, [...ids].sort((a, b) => a - b), `in event order: ${ids.join(', ')}`)
    }
  })
})
