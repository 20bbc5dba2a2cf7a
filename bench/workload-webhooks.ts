// The webhooks section of `npm run bench:workload`: what delivering every event to 10 subscriptions
// costs the API, how long an event takes from its commit to its receivers, and what a delivery
// worker sends on its core. The processes run as the image runs them, by role (webhook settings at
// their defaults, or as the JSON object in BENCH_WEBHOOK_SETTINGS says, e.g.
// '{"WEBHOOK_WORKERS":"16"}'; loopback targets allowed), each side on its own copy of the seeded data:
// an `api` process without subscriptions; and an `api` process with 10, each to a receiver of
// bench/webhook-receivers.ts, beside a `worker` process on the load generator's core. Both APIs take
// `candidatar` (one event per request):
// - at full speed, in interleaved rounds: the API's req/s with subscriptions ÷ without, with its
//   worker sending (on two cores, from the load generator's core) and with its worker stopped (the
//   API's own cost: writing and queueing the deliveries), target ≥ 0.95;
// - at a fixed offered rate of half what the one without subscriptions reached at full speed (or
//   BENCH_WEBHOOK_OFFERED req/s), in interleaved rounds: each delivery's arrival at its receiver
//   minus its event's `em`, target p99 < 2 s. `em` is when the event's transaction began, a little
//   before its commit, so the figure errs long. An event not at every receiver BENCH_WEBHOOK_WAIT
//   seconds after the load ended is missing, counted infinitely late;
// - at saturation, one worker and then two sharing its core (bench/workload-webhook-workers.ts).
// After each run with subscriptions, what is still queued is dropped (bench/webhook-subscriptions.ts),
// so no run inherits the backlog of another.
import { setTimeout as sleep } from 'node:timers/promises'
import { mintToken } from '../test/helper.ts'
import { compare, fmt, median, medians, positiveInteger, printRows, profilingFlags, type Comparison, type Figures, type Server } from './harness.ts'
import { SHIPPED_NODE_FLAGS } from './shipped-process.ts'
import type { LoadResult } from './load-result.ts'
import { percentile } from './open-loop.ts'
import type { Arrivals } from './webhook-receivers.ts'
import { eventMark, eventsAfter, queuedAfter, Receivers, skipBacklog, subscribe, type EventMark, type RunEvent, type Subscribed } from './webhook-subscriptions.ts'
import { interleaved, settings, unexpected, type WorkloadBench } from './workload-runs.ts'
import { measureWorkerScaling, signal, stopWhenIdle, type DrainRound, type WorkerScaling } from './workload-webhook-workers.ts'

const SUBSCRIPTIONS = 10
const OPERATION = 'candidatar'
const THROUGHPUT_TARGET = 0.95
const P99_TARGET_MS = 2000
const waitSeconds = positiveInteger('BENCH_WEBHOOK_WAIT', 30)
// A fixed offered rate instead of half of what the service without subscriptions reached (unset: that half).
const offeredSetting = positiveInteger('BENCH_WEBHOOK_OFFERED', 0)

export interface DeliveryFigures {
  /** Events the runs wrote, and deliveries due: one per event and subscription. */
  events: number
  due: number
  /** Deliveries that arrived within the wait; the others are missing. */
  delivered: number
  missing: number
  /** Commit (the event's `em`) to arrival, ms, over every delivery due; null when missing ones fall at or below that rank. */
  p50: number | null
  p99: number | null
  /** The same over the deliveries that arrived only. */
  deliveredP50: number
  deliveredP99: number
  /** Commit to the delivery's job being queued (the dispatch), ms, over the jobs queued. */
  queuedP50: number
  queuedP99: number
  /** When the last delivery arrived, ms after the load ended (0: all during the load). */
  lastAfterLoad: number
  /** Deliveries of an event its receiver already had, and ones whose signature did not verify. */
  repeated: number
  unverified: number
}

export interface WebhooksReport {
  operation: typeof OPERATION
  subscriptions: number
  /** The API with subscriptions, its worker sending, against without. */
  atFullSpeed: Comparison
  /** The API with subscriptions, its worker stopped, against without: the API's own cost; the target applies to its ratio. */
  apiAlone: Comparison & { target: number }
  atHalfCapacity: Comparison & { offered: number }
  delivery: DeliveryFigures & { targetP99: number, waitSeconds: number, rounds: DeliveryFigures[] }
  workers: WorkerScaling
  /** Answers other than 2xx, errors and timeouts, on either side. */
  unexpectedAnswers: number
  rounds: { without: LoadResult[], with: LoadResult[], queued: LoadResult[], halfWithout: LoadResult[], halfWith: LoadResult[] }
}

/** `queued`: the API with subscriptions while its worker is stopped, so nothing is sent from the load generator's core. */
interface Side { name: 'without' | 'with' | 'queued', server: Server, databaseUrl: string }

/** A run's latencies, Infinity for each delivery missing. */
interface RoundDeliveries { latencies: number[], queued: number[], events: number, lastAfterLoad: number, repeated: number, unverified: number }

function deliveriesOf (events: RunEvent[], arrivals: Arrivals, paths: string[], loadEnded: number): Omit<RoundDeliveries, 'queued'> {
  const latencies: number[] = []
  let last = loadEnded
  for (const path of paths) {
    const arrived = new Map(arrivals.first[path] ?? [])
    for (const event of events) {
      const at = event.id === null ? undefined : arrived.get(event.id)
      latencies.push(at === undefined ? Infinity : at - event.at)
      if (at !== undefined) last = Math.max(last, at)
    }
  }
  return { latencies, events: events.length, lastAfterLoad: last - loadEnded, repeated: arrivals.repeated, unverified: arrivals.unverified }
}

function figuresOf (rounds: RoundDeliveries[]): DeliveryFigures {
  const latencies = rounds.flatMap(r => r.latencies).sort((a, b) => a - b)
  const queued = rounds.flatMap(r => r.queued).sort((a, b) => a - b)
  const finite = (value: number) => Number.isFinite(value) ? value : null
  const missing = latencies.filter(value => !Number.isFinite(value)).length
  const delivered = latencies.slice(0, latencies.length - missing)
  return {
    events: rounds.reduce((sum, r) => sum + r.events, 0),
    due: latencies.length,
    delivered: latencies.length - missing,
    missing,
    p50: finite(percentile(latencies, 0.5)),
    p99: finite(percentile(latencies, 0.99)),
    deliveredP50: percentile(delivered, 0.5),
    deliveredP99: percentile(delivered, 0.99),
    queuedP50: percentile(queued, 0.5),
    queuedP99: percentile(queued, 0.99),
    lastAfterLoad: Math.max(...rounds.map(r => r.lastAfterLoad)),
    repeated: rounds.reduce((sum, r) => sum + r.repeated, 0),
    unverified: rounds.reduce((sum, r) => sum + r.unverified, 0)
  }
}

/** The section: starts its servers (the bench stops them if it fails) and receivers, measures, and stops them. */
export async function measureWebhooks (bench: WorkloadBench, copyUrl: string): Promise<WebhooksReport> {
  const receivers = await Receivers.start(bench.pinning, SUBSCRIPTIONS)
  try {
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...JSON.parse(process.env.BENCH_WEBHOOK_SETTINGS ?? '{}') as Record<string, string> }
    const api = { ...env, SERVICE_ROLE: 'api' }
    const without: Side = { name: 'without', server: await bench.startService('api, no subscriptions', { env: api }), databaseUrl: bench.databaseUrl }
    const withThem: Side = { name: 'with', server: await bench.startService(`api, ${SUBSCRIPTIONS} subscriptions`, { env: { ...api, DATABASE_URL: copyUrl } }), databaseUrl: copyUrl }
    // BENCH_CPU_PROFILE profiles the first worker: where a delivery's time goes.
    const startWorker = async (name: string, nodeFlags: readonly string[] = SHIPPED_NODE_FLAGS) =>
      await bench.startService(name, { onLoadCore: true, nodeFlags, env: { ...env, SERVICE_ROLE: 'worker', DATABASE_URL: copyUrl } })
    const worker = await startWorker('worker', [...SHIPPED_NODE_FLAGS, ...profilingFlags()])
    const authorization = `Bearer ${await mintToken({ sub: 'bench', scope: 'webhooks:write eventos:read', ttl: 24 * 3600 })}`
    await skipBacklog(copyUrl)
    const subscribed = await subscribe(withThem.server, authorization, receivers)
    const report = await measure(bench, receivers, subscribed, without, withThem, worker)
    const workers = await measureWorkerScaling(bench, receivers, subscribed, withThem.server, copyUrl, worker, startWorker, await deliveryBody(withThem.server, authorization))
    await bench.stop(worker)
    await bench.stop(withThem.server)
    await bench.stop(without.server)
    return { ...report, workers }
  } finally {
    receivers.close()
  }
}

/** A delivery's body as the worker sends it: the latest event, as the feed shows it, in Standard Webhooks' envelope. */
async function deliveryBody (api: Server, authorization: string): Promise<string> {
  const response = await fetch(`${api.baseUrl}/api/v2/eventos?limit=1`, { headers: { authorization } })
  const { items: [event] } = await response.json() as { items: Array<{ tipo: string, em: string }> }
  if (event === undefined) throw new Error(`GET /api/v2/eventos answered ${response.status} with no event`)
  return JSON.stringify({ type: event.tipo, timestamp: event.em, data: event })
}

async function measure (bench: WorkloadBench, receivers: Receivers, subscribed: Subscribed, without: Side, withThem: Side, worker: Server): Promise<Omit<WebhooksReport, 'workers'>> {
  const queued: Side = { ...withThem, name: 'queued' }
  const rounds: Record<Side['name'], LoadResult[]> = { without: [], with: [], queued: [] }
  const half: Record<Side['name'], LoadResult[]> = { without: [], with: [], queued: [] }
  const deliveries: RoundDeliveries[] = []

  /** One run; with subscriptions, the deliveries' figures when asked, then the backlog dropped. */
  const run = async (side: Side, durationSeconds: number, offeredRate?: number, measureDeliveries = false): Promise<LoadResult> => {
    const mark = await eventMark(side.databaseUrl)
    if (side.name === 'queued') await stopWhenIdle([worker], side.databaseUrl)
    const result = await bench.load(OPERATION, side.server, durationSeconds, offeredRate, side.databaseUrl)
    if (side.name === 'queued') {
      await skipBacklog(side.databaseUrl)
      signal([worker], 'SIGCONT')
    } else if (side.name === 'with') {
      const loadEnded = Date.now()
      if (measureDeliveries) deliveries.push(await collect(receivers, subscribed, side.databaseUrl, mark, loadEnded))
      else await receivers.take(subscribed.paths)
      await skipBacklog(side.databaseUrl)
    }
    return result
  }

  process.stdout.write(`webhooks (${OPERATION}, ${SUBSCRIPTIONS} subscriptions): warm-up ${settings.warmupSeconds} s each,`)
  for (const side of [without, withThem]) await run(side, settings.warmupSeconds)
  await interleaved([without, withThem, queued], 'round', async side => {
    rounds[side.name].push(await run(side, settings.durationSeconds))
  })
  const offered = offeredSetting > 0 ? offeredSetting : Math.max(1, Math.round(medians(rounds.without).requestsPerSecond / 2))
  await interleaved([without, withThem], 'half capacity', async side => {
    half[side.name].push(await run(side, settings.durationSeconds, offered, true))
  })
  process.stdout.write('\n')

  const all = [...rounds.without, ...rounds.with, ...rounds.queued, ...half.without, ...half.with]
  return {
    operation: OPERATION,
    subscriptions: SUBSCRIPTIONS,
    atFullSpeed: compare(rounds.with, rounds.without),
    apiAlone: { ...compare(rounds.queued, rounds.without), target: THROUGHPUT_TARGET },
    atHalfCapacity: { ...compare(half.with, half.without), offered },
    delivery: { ...figuresOf(deliveries), targetP99: P99_TARGET_MS, waitSeconds, rounds: deliveries.map(round => figuresOf([round])) },
    unexpectedAnswers: unexpected(all),
    rounds: { without: rounds.without, with: rounds.with, queued: rounds.queued, halfWithout: half.without, halfWith: half.with }
  }
}

/** Waits for every delivery the run's events are due (up to the wait), then reads what arrived. */
async function collect (receivers: Receivers, subscribed: Subscribed, databaseUrl: string, mark: EventMark, loadEnded: number): Promise<RoundDeliveries> {
  const due = (await eventsAfter(databaseUrl, mark)).length * subscribed.paths.length
  const deadline = loadEnded + waitSeconds * 1000
  while (Date.now() < deadline && await receivers.received(subscribed.paths, mark.id) < due) await sleep(200)
  const arrivals = await receivers.take(subscribed.paths)
  const events = await eventsAfter(databaseUrl, mark)
  return { ...deliveriesOf(events, arrivals, subscribed.paths, loadEnded), queued: await queuedAfter(databaseUrl, mark) }
}

export function printWebhooks (r: WebhooksReport): void {
  const cpu = (f: Figures) => f.cpuMicrosPerRequest === undefined ? '-' : fmt(f.cpuMicrosPerRequest, 0)
  const share = (f: Figures) => f.serverCpuShare === undefined ? '-' : `${fmt(f.serverCpuShare * 100, 0)} %`
  const full = r.atFullSpeed
  const alone = r.apiAlone
  const half = r.atHalfCapacity
  const ratio = (c: Comparison) => `${c.ratio.toFixed(2)} (rounds ${Math.min(...c.roundRatios).toFixed(2)}-${Math.max(...c.roundRatios).toFixed(2)})`
  const flag = r.unexpectedAnswers > 0 ? ` ${r.unexpectedAnswers} unexpected answers` : ''
  const subscriptions = `${r.subscriptions} subscriptions`
  const row = (label: string, side: string, f: Figures, rate: string, against: string[]) =>
    [label, side, rate, fmt(f.latencyP50, 1), fmt(f.latencyP99, 1), cpu(f), share(f), ...against]
  printRows([
    [`webhooks: ${r.operation}`, 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU', 'with ÷ without req/s', 'target'],
    row('at full speed', 'api, no subscriptions', full.baseline, fmt(full.baseline.requestsPerSecond, 0), ['', '']),
    row('', `api, ${subscriptions} + worker`, full.service, fmt(full.service.requestsPerSecond, 0), [ratio(full), 'for the record: the worker shares the load\'s core']),
    row('', `api, ${subscriptions}, worker stopped`, alone.service, fmt(alone.service.requestsPerSecond, 0),
      [ratio(alone), `${alone.ratio >= alone.target ? 'meets' : 'MISSES'} ≥ ${alone.target.toFixed(2)}${flag}`]),
    row('at half capacity', 'api, no subscriptions', half.baseline, `${fmt(half.baseline.requestsPerSecond, 0)} of ${fmt(half.offered, 0)}`, ['', '']),
    row('', `api, ${subscriptions} + worker`, half.service, `${fmt(half.service.requestsPerSecond, 0)} of ${fmt(half.offered, 0)}`, [ratio(half), 'for the record'])
  ])

  const d = r.delivery
  const ms = (value: number | null) => value === null ? 'missing' : fmt(value, 0)
  const line = (label: string, f: DeliveryFigures, verdict: string) => [label, `${fmt(f.delivered, 0)} of ${fmt(f.due, 0)}`, fmt(f.missing, 0), ms(f.p50), ms(f.p99),
    `${fmt(f.deliveredP50, 0)} / ${fmt(f.deliveredP99, 0)}`, `${fmt(f.queuedP50, 0)} / ${fmt(f.queuedP99, 0)}`, fmt(f.lastAfterLoad / 1000, 1), verdict]
  const issues = [d.repeated > 0 ? `${d.repeated} repeated` : '', d.unverified > 0 ? `${d.unverified} NOT VERIFIED` : ''].filter(Boolean).join(', ')
  const verdict = `p99 ${d.p99 !== null && d.p99 < d.targetP99 ? 'meets' : 'MISSES'} < ${fmt(d.targetP99, 0)} ms; missing ${d.missing === 0 ? 'meets' : 'MISSES'} 0${issues === '' ? '' : `; ${issues}`}`
  printRows([
    ['commit → delivery, at half capacity', 'delivered', 'missing', 'p50 ms', 'p99 ms', 'of delivered p50 / p99', 'to queued p50 / p99', 'last, s after load', 'target'],
    ...d.rounds.map((f, i) => line(`round ${i + 1}`, f, '')),
    line('all rounds', d, verdict)
  ])
  process.stdout.write(`missing: not at its receiver ${d.waitSeconds} s after the load ended (p50, p99: of every delivery due, the missing ones last); ` +
    'to queued: from the event\'s em to its delivery\'s job, over the jobs queued\n')
  printWorkers(r.workers)
}

function printWorkers (w: WorkerScaling): void {
  const line = (label: string, round: DrainRound, against: string[]) => [label, String(round.workers), `${fmt(round.deliveries, 0)}${round.missing > 0 ? ` (${round.missing} missing)` : ''}`,
    fmt(round.seconds, 1), fmt(round.perSecond, 0), fmt(round.cpuMicrosPerDelivery, 1), String(round.repeated), ...against]
  const flags = (rounds: DrainRound[]) => {
    const wrong = rounds.reduce((sum, round) => sum + round.missing + round.repeated + round.unverified, 0)
    return wrong === 0 ? '' : `; ${wrong} missing, repeated or not verified: MISSES`
  }
  const rounds = w.oneWorker.flatMap((one, i) => [
    line(`round ${i + 1}`, one, ['', '']),
    line('', w.twoWorkers[i]!, [w.twoOverOneRounds[i]!.toFixed(2), ''])
  ])
  const within = Math.abs(w.twoOverOne - 1) <= w.tolerance
  printRows([
    ['webhook workers at saturation', 'workers on one core', 'deliveries', 's', 'deliveries/s', 'worker CPU µs/delivery', 'repeated', 'two ÷ one', 'target'],
    ...rounds,
    ['median', '1', '', '', fmt(w.perSecondPerCore, 0), fmt(w.cpuMicrosPerDelivery, 1), '', '',
      `CPU ${w.cpuMicrosPerDelivery <= w.cpuTargetMicros ? 'meets' : 'MISSES'} ≤ ${w.cpuTargetMicros} µs${flags(w.oneWorker)}`],
    ['', '2', '', '', '', '', '', w.twoOverOne.toFixed(2),
      `two ÷ one ${within ? 'meets' : 'MISSES'} 1 ± ${w.tolerance.toFixed(2)}${flags(w.twoWorkers)}`],
    ['bare client, same POSTs', '', fmt(w.bare[0]?.requests ?? 0, 0), '', fmt(median(w.bare.map(run => run.perSecond)), 0), fmt(w.bareCpuMicrosPerRequest, 1), '', '',
      `a delivery: ${w.deliveryOverBareCpu.toFixed(2)} × a bare request's CPU`]
  ])
  process.stdout.write('deliveries/s: from the first arrival to the last of a backlog the API queued while the workers were stopped; the receivers on the API\'s idle core\n')
}
