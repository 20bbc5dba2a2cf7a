// Delivery scaled out as worker processes: an API process queues the deliveries of 5,000 events to
// three receivers and sends none; two workers send them, and one killed (SIGKILL) mid-run loses
// nothing. Every event reaches every receiver, verified, each subject's in order; one comes twice only
// after an attempt whose answer was lost, and the killed worker's deliveries come again within their limit.
import t from 'tap'
import assert from 'node:assert/strict'
import { batchLimitSeconds } from '../../src/webhooks/attempt-limit.ts'
import { BATCH_QUEUE } from '../../src/webhooks/queue-names.ts'
import { eventually } from '../support/eventually.ts'
import { feedEvents, type FeedEvent } from '../support/service-api.ts'
import { scrapeMetrics } from '../support/service-metrics.ts'
import { webhookInstances } from '../support/webhook-instances.ts'
import { startReceiver, type Delivery, type Receiver } from '../support/webhook-receiver.ts'

const VAGAS = 10
// Each makes three events of its own: criado, candidatar, aprovar.
const CANDIDATOS = 1660
// Each vaga's two (criada, alterada) and the candidatos': 5,000.
const EVENTS = 2 * VAGAS + 3 * CANDIDATOS
const IN_FLIGHT = 16
// They bound how long a lost attempt can take (src/webhooks/attempt-limit.ts): short, so a batch lost
// with the killed worker runs again soon. A receiver in this busy test process can be slow to answer:
// the timeout is as test/process/webhook-killed-instance.test.ts has it.
const DEADLINES = { timeoutMs: 4000, poolTimeoutMs: 1000, statementDeadlineMs: 1000 }
// A batch lost with its worker runs again once past its limit (docs/api.md, "Deliveries"); the
// queue's next look for lost jobs, the retry's delay and a busy machine take some seconds more.
const RESUMED_WITHIN_MS = (batchLimitSeconds(DEADLINES) + 15) * 1000

/** Each message's first arrival, in arrival order, and its arrivals after that. */
function arrivals (deliveries: readonly Delivery[]): { first: Delivery[], again: Delivery[] } {
  const seen = new Set<string>()
  const first: Delivery[] = []
  const again: Delivery[] = []
  for (const delivery of deliveries) {
    (seen.has(delivery.id) ? again : first).push(delivery)
    seen.add(delivery.id)
  }
  return { first, again }
}

/** Event ids by subject, in the order given. */
function bySubject (events: ReadonlyArray<Pick<FeedEvent, 'id' | 'sujeito'>>): Map<string, number[]> {
  const subjects = new Map<string, number[]>()
  for (const { id, sujeito } of events) subjects.set(sujeito.id, [...subjects.get(sujeito.id) ?? [], id])
  return subjects
}

t.test('an API process and two workers, one killed mid-run: every event reaches every receiver, in order per subject', async t => {
  const started = await webhookInstances(t, 1, {
    SERVICE_ROLE: 'api',
    // One client writes every event.
    RATE_LIMIT_MAX: '0',
    WEBHOOK_CONCURRENCY: '8',
    WEBHOOK_TIMEOUT_MS: String(DEADLINES.timeoutMs),
    DATABASE_POOL_TIMEOUT_MS: String(DEADLINES.poolTimeoutMs),
    DATABASE_STATEMENT_TIMEOUT_MS: String(DEADLINES.statementDeadlineMs),
    WEBHOOK_RETRY_DELAY_SECONDS: '1',
    WEBHOOK_RETRY_DELAY_MAX_SECONDS: '2'
  })
  if (started === undefined) return
  const { instances: [api], send, startAnother } = started
  const receivers: Receiver[] = []
  for (let i = 0; i < 3; i++) {
    const receiver = await startReceiver(t)
    receiver.secret = (await send(api!, '/webhooks', { url: receiver.url })).segredo!
    receivers.push(receiver)
  }
  const distinct = (): number => receivers.reduce((sum, r) => sum + new Set(r.deliveries.map(d => d.id)).size, 0)

  // Candidatos side by side, each one's events one after another.
  const producing = (async () => {
    const vagas = await Promise.all(Array.from({ length: VAGAS }, async (_, i) => await send(api!, '/vagas', { titulo: `Vaga ${i}` })))
    let next = 0
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < CANDIDATOS; i = next++) {
        const candidato = await send(api!, '/candidatos', { nome: `C${i}`, email: `c${i}@example.com` })
        await send(api!, `/candidatos/${candidato.id}/candidatar`, { vagaId: vagas[i % VAGAS]!.id })
        await send(api!, `/candidatos/${candidato.id}/aprovar`, {})
      }
    }))
    for (const vaga of vagas) await send(api!, `/vagas/${vaga.id}`, { titulo: `${vaga.id} sênior` }, 'PATCH')
  })()
  producing.catch(() => {}) // awaited below; the waits before it fail on their own

  // With no worker yet, a batch per subscription waits in the queue and no receiver has anything.
  const queued = await eventually(async () => {
    const metric = await scrapeMetrics(api!)
    assert.ok(metric('webhook_queue_jobs', { queue: BATCH_QUEUE, state: 'waiting' }) >= receivers.length)
    return metric
  }, { interval: 100 })
  t.equal(queued('webhook_queue_jobs', { queue: BATCH_QUEUE, state: 'active' }), 0, 'the API process took no batch')
  t.equal(distinct(), 0, 'no receiver got anything from the API process')

  const workers = await Promise.all([startAnother({ SERVICE_ROLE: 'worker' }), startAnother({ SERVICE_ROLE: 'worker' })])
  const attemptsOf = async (server: { url: string }): Promise<number> => (await scrapeMetrics(server))('webhook_delivery_attempts_total')
  await eventually(() => { assert.ok(distinct() >= 300, `${distinct()} arrived`) }, { timeout: 60_000, interval: 50 })
  // The one that has sent more is killed: it has deliveries under way.
  const sent = await Promise.all(workers.map(attemptsOf))
  const [doomed, survivor] = sent[0]! >= sent[1]! ? workers : [workers[1]!, workers[0]!]
  const killedAt = Date.now()
  doomed.child.kill('SIGKILL')
  await doomed.exited
  const diedAt = Date.now()
  // What the killed worker sent may still be on its way. It has all arrived once every connection has
  // closed (the killed worker's, after what it sent) or brought a delivery since (a live worker's).
  await eventually(() => {
    assert.ok(receivers.every(r => r.connections.every(c => c.closed || (c.lastArrivalAt ?? 0) > diedAt)))
  })
  const beforeKill = receivers.map(r => r.deliveries.length)
  const survivorBefore = await attemptsOf(survivor)
  t.ok(distinct() < receivers.length * EVENTS / 2, `killed a worker with ${Math.max(...sent)} attempts made (the other ${Math.min(...sent)}) and ${distinct()} of ${receivers.length * EVENTS} deliveries in`)

  await producing
  const events = await feedEvents(send, api!)
  t.equal(events.length, EVENTS, 'every write made its event')
  const ids = new Set(events.map(event => event.id))
  await eventually(() => {
    for (const r of receivers) assert.equal(new Set(r.deliveries.map(d => d.payload.data.id)).size, ids.size, `a receiver has ${r.deliveries.length} deliveries`)
  }, { timeout: 120_000, interval: 200 })
  t.equal(distinct(), receivers.length * EVENTS, `every event at every receiver, the last ${Date.now() - killedAt} ms after the kill`)

  const order = bySubject(events)
  const since = (at: number): string => `${at - killedAt} ms`
  receivers.forEach((r, n) => {
    const { first, again } = arrivals(r.deliveries)
    t.same(first.filter(d => !ids.has(d.payload.data.id)).map(d => d.id), [], `receiver ${n}: nothing but the feed's events`)
    t.equal(r.deliveries.filter(d => !d.verified).length, 0, `receiver ${n}: every delivery verifies`)
    const outOfOrder = [...bySubject(first.map(d => d.payload.data))].filter(([subject, got]) => got.join() !== order.get(subject)!.join())
      .map(([subject, got]) => `${subject}: ${got.join()} (feed: ${order.get(subject)!.join()})`)
    t.same(outOfOrder, [], `receiver ${n}: each of ${order.size} subjects' events first arrived in feed order`)

    // Sent again, as at least once allows, only after an attempt whose answer was lost: one the killed
    // worker had sent (it arrived before the connections settled), or one whose sender hung up before
    // the answer went out (its time limit passed on a starved machine).
    const seenBeforeKill = new Set(r.deliveries.slice(0, beforeKill[n]).map(d => d.id))
    const firstOf = new Map(first.map(d => [d.id, d]))
    const repeatedAfterAnswer = again.filter(d => !seenBeforeKill.has(d.id) && firstOf.get(d.id)!.answered !== undefined)
      .map(d => `${d.id} at ${since(firstOf.get(d.id)!.receivedAt)} and ${since(d.receivedAt)}`)
    t.same(repeatedAfterAnswer, [], `receiver ${n}: ${again.length} came twice, each after an attempt whose answer was lost`)
    const lastAgain = Math.max(killedAt, ...again.filter(d => seenBeforeKill.has(d.id)).map(d => d.receivedAt))
    t.ok(lastAgain - killedAt <= RESUMED_WITHIN_MS, `receiver ${n}: the killed worker's deliveries came again within ${since(lastAgain)} of the kill (limit ${RESUMED_WITHIN_MS} ms)`)
    const afterKill = [killedAt, ...r.deliveries.filter(d => d.receivedAt > killedAt).map(d => d.receivedAt)]
    const longestWait = Math.max(...afterKill.map((at, i) => i === 0 ? 0 : at - afterKill[i - 1]!))
    t.ok(longestWait <= RESUMED_WITHIN_MS, `receiver ${n}: after the kill, waited ${longestWait} ms at most for its next delivery`)
  })

  t.equal(await attemptsOf(api!), 0, 'the API process made no attempt')
  t.ok(await attemptsOf(survivor) > survivorBefore, 'the surviving worker sent the rest')
})
