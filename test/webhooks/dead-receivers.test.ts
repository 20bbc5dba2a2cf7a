// Twenty receivers that never answer, and one that fails each delivery's first attempt and takes its
// retry: once the dead ones have failed for WEBHOOK_* `failingAfterSeconds`, their deliveries are
// worked by the failing lane alone, and the flaky receiver's due retries are attempted within the
// bound docs/operations.md gives, not behind the dead ones' backlogs.
import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

const DEAD = 20
const RETRY_DELAY_MAX_SECONDS = 2
const TIMEOUT_MS = 1000
const POLLING_SECONDS = 0.5
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_DISPATCH_INTERVAL_MS: '100',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_RETRY_DELAY_SECONDS: '1',
  WEBHOOK_RETRY_DELAY_MAX_SECONDS: String(RETRY_DELAY_MAX_SECONDS),
  // Two workers: the twenty dead receivers alone could keep ten times as many busy.
  WEBHOOK_WORKERS: '2'
}
// failingAfterSeconds for these settings: three retry delays and two timeouts.
const FAILING_AFTER_SECONDS = 3 * 1 + 2 * TIMEOUT_MS / 1000
// The documented bound (a retry's delay, a poll, and a timeout for the worker to come free) with
// room for a two-core machine busy with the whole suite: behind
// the dead receivers' backlogs, retries waited minutes.
const RETRY_BOUND_MS = (RETRY_DELAY_MAX_SECONDS + POLLING_SECONDS) * 1000 + TIMEOUT_MS + 15_000

/** A server that takes connections and never answers. */
async function deadServer (t: Test): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise(resolve => server.close(resolve))
  })
  return (server.address() as AddressInfo).port
}

t.test('dead receivers do not hold back a healthy receiver\'s due retries', async t => {
  const app = await build(t, { env: ENV })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: 'candidatos:write webhooks:write eventos:read' })
  const post = async (url: string, payload: object): Promise<{ id: string, segredo?: string }> => {
    const res = await app.inject({ method: 'POST', url, headers, payload })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }

  const deadPort = await deadServer(t)
  for (let i = 0; i < DEAD; i++) await post('/api/v2/webhooks', { url: `http://127.0.0.1:${deadPort}/dead-${i}` })
  const flaky = await startReceiver(t)
  // Each delivery's attempts, by message id, as the receiver saw them arrive.
  const arrivals = new Map<string, number[]>()
  flaky.answer = delivery => {
    const times = arrivals.get(delivery.id) ?? []
    times.push(Date.now())
    arrivals.set(delivery.id, times)
    return { status: times.length === 1 ? 500 : 204 }
  }
  flaky.secret = (await post('/api/v2/webhooks', { url: flaky.url })).segredo!

  const candidatos = async (count: number, from: number): Promise<void> => {
    for (let i = from; i < from + count; i++) await post('/api/v2/candidatos', { nome: `Candidata ${i}`, email: `c${i}@example.com` })
  }
  // Deliveries to every receiver, until the dead ones have failed long enough to count as failing:
  // the backlog the later retries would wait behind.
  await candidatos(10, 0)
  await eventually(async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhooks
      where falhando_desde < now() - make_interval(secs => ${FAILING_AFTER_SECONDS + 1})`.execute(app.storage.db)
    assert.ok(rows[0]!.n >= DEAD, `${rows[0]!.n} subscriptions failing long enough`)
  }, { timeout: 60_000, interval: 250 })

  const before = new Set(arrivals.keys())
  const startedAt = Date.now()
  await candidatos(20, 10)
  await eventually(() => {
    assert.equal(flaky.deliveries.filter(d => d.answered === 204).length, 30, 'every event delivered to the flaky receiver')
  }, { timeout: 120_000, interval: 250 })
  const retries = [...arrivals.entries()].filter(([id]) => !before.has(id)).map(([, times]) => times[1]! - times[0]!)
  t.ok(retries.length >= 20, `${retries.length} deliveries after the dead receivers were failing`)
  const latest = Math.max(...retries)
  t.ok(latest <= RETRY_BOUND_MS, `each retry came within ${RETRY_BOUND_MS} ms of the failed attempt: the latest after ${latest} ms (all done ${Date.now() - startedAt} ms after the events)`)
  t.ok(flaky.deliveries.every(d => d.verified), 'each delivery verifies')
})
