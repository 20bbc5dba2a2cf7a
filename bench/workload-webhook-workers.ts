// The webhooks section's saturation part: how many deliveries a worker process sends a second on a
// core of its own, what each costs it in CPU, and whether a second worker adds capacity. The API
// process (on the servers' core) writes and queues a backlog while the workers are stopped
// (SIGSTOP); the receivers then move to the API's core, idle by then, so the workers have the load
// generator's core to themselves; one worker, or two sharing that core, are let go (SIGCONT) and
// timed from the first delivery's arrival to the last. Two workers on one core must together send
// at one worker's rate, within 10 %: then on a second core the second adds a core's worth. None of
// the deliveries may come twice. Beside each round, a bare client sends the same number of POSTs of
// a delivery's body from the same core (bench/bare-sender.ts): what the HTTP requests alone cost.
import { setTimeout as sleep } from 'node:timers/promises'
import type { BareSenderOptions, BareSenderResult } from './bare-sender.ts'
import { cpuSeconds, median, runScript, untilQuiet, type Server } from './harness.ts'
import { BARE_PATH, eventMark, eventsAfter, queuedAfter, skipBacklog, sessionBusy, type EventMark, type Receivers, type Subscribed } from './webhook-subscriptions.ts'
import { settings, type WorkloadBench } from './workload-runs.ts'

const OPERATION = 'candidatar'
const SCALING_TOLERANCE = 0.1
const CPU_PER_DELIVERY_TARGET_MICROS = 25
const WAIT_MS = 120_000
const STATEMENT_SETTLE_MS = 100
const STOP_ATTEMPTS = 20
// The bare client's requests per round, and in flight: as many as a worker's 10 subscriptions send
// at once (WEBHOOK_CONCURRENCY, 2 by default, each).
const BARE_REQUESTS = 50_000
const BARE_IN_FLIGHT = 20

export interface DrainRound {
  workers: number
  deliveries: number
  /** From the first delivery's arrival to the last, s. */
  seconds: number
  perSecond: number
  /** The workers' CPU over the deliveries they sent. */
  cpuMicrosPerDelivery: number
  missing: number
  repeated: number
  unverified: number
}

export interface WorkerScaling {
  oneWorker: DrainRound[]
  twoWorkers: DrainRound[]
  /** The same POSTs from a bare client on the worker's core (bench/bare-sender.ts), one run per round. */
  bare: BareSenderResult[]
  /** Medians: the bare client's CPU per request, and a delivery's over it. */
  bareCpuMicrosPerRequest: number
  deliveryOverBareCpu: number
  /** Medians over the rounds. */
  perSecondPerCore: number
  cpuMicrosPerDelivery: number
  cpuTargetMicros: number
  /** Two workers sharing a core against one alone, median of the rounds' ratios, and each round's. */
  twoOverOne: number
  twoOverOneRounds: number[]
  tolerance: number
}

/** Waits until every event after `mark` is numbered and queued for each subscription; returns the deliveries due. */
async function untilQueued (databaseUrl: string, mark: EventMark, subscriptions: number): Promise<number> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const events = await eventsAfter(databaseUrl, mark)
    const due = events.length * subscriptions
    const numbered = events.filter(event => event.id !== null).length
    const queued = (await queuedAfter(databaseUrl, mark)).length
    if (numbered === events.length && queued === due) return due
    if (Date.now() > deadline) throw new Error(`the API had not queued the ${due} deliveries of its backlog ${WAIT_MS} ms after the load (${numbered} of ${events.length} events numbered, ${queued} deliveries queued)`)
    await sleep(200)
  }
}

export function signal (workers: Server[], name: 'SIGSTOP' | 'SIGCONT'): void {
  for (const worker of workers) worker.child.kill(name)
}

/** Stops the workers once they are idle: never in the middle of a transaction, whose locks would hold up the rest. */
export async function stopWhenIdle (workers: Server[], databaseUrl: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await untilQuiet(workers)
    signal(workers, 'SIGSTOP')
    // A statement under way when they stopped ends on the server meanwhile.
    await sleep(STATEMENT_SETTLE_MS)
    // The API's sessions count too, and are busy only now and then: the workers are stopped again.
    if (!await sessionBusy(databaseUrl)) return
    if (attempt === STOP_ATTEMPTS) throw new Error(`a session of the service was busy each of the ${STOP_ATTEMPTS} times the workers were stopped`)
    signal(workers, 'SIGCONT')
  }
}

/** One round: a backlog queued while every worker is stopped, then `running` of them let go until it is sent. */
async function drain (bench: WorkloadBench, receivers: Receivers, subscribed: Subscribed, api: Server, databaseUrl: string, running: Server[]): Promise<DrainRound> {
  const mark = await eventMark(databaseUrl)
  await bench.load(OPERATION, api, settings.durationSeconds, undefined, databaseUrl)
  const due = await untilQueued(databaseUrl, mark, subscribed.paths.length)
  const cpuBefore = running.map(worker => cpuSeconds(worker) ?? 0)
  try {
    await receivers.onServersCore(bench.pinning, async () => {
      signal(running, 'SIGCONT')
      const deadline = Date.now() + WAIT_MS
      while (Date.now() < deadline && await receivers.received(subscribed.paths, mark.id) < due) await sleep(100)
    })
  } finally {
    await stopWhenIdle(running, databaseUrl)
  }
  const cpu = running.reduce((sum, worker, i) => sum + (cpuSeconds(worker) ?? 0) - cpuBefore[i]!, 0)
  const arrivals = await receivers.take(subscribed.paths)
  const times = Object.values(arrivals.first).flatMap(firsts => firsts.filter(([id]) => id > mark.id).map(([, at]) => at))
  const delivered = times.length
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000
  await skipBacklog(databaseUrl)
  return {
    workers: running.length,
    deliveries: delivered,
    seconds,
    perSecond: delivered / seconds,
    cpuMicrosPerDelivery: cpu * 1e6 / delivered,
    missing: due - delivered,
    repeated: arrivals.repeated,
    unverified: arrivals.unverified
  }
}

/** The bare client's run, on the workers' core, with the receivers on the API's idle core. */
async function bareRun (bench: WorkloadBench, receivers: Receivers, body: string): Promise<BareSenderResult> {
  const options: BareSenderOptions = { urls: receivers.origins.map(origin => origin + BARE_PATH), count: BARE_REQUESTS, inFlight: BARE_IN_FLIGHT, body }
  const result = await receivers.onServersCore(bench.pinning, async () => await runScript<BareSenderResult>(bench.pinning, 'bench/bare-sender.ts', options))
  if (result.failed > 0) throw new Error(`the bare client had ${result.failed} answers other than 2xx`)
  return result
}

/**
 * Interleaved rounds of one worker alone and of two sharing its core. `first` is the worker the
 * section already runs; a second starts beside it. Both are stopped between rounds, and stay
 * running when this returns.
 */
export async function measureWorkerScaling (bench: WorkloadBench, receivers: Receivers, subscribed: Subscribed, api: Server, databaseUrl: string,
  first: Server, startWorker: (name: string) => Promise<Server>, sampleBody: string): Promise<WorkerScaling> {
  const second = await startWorker('worker 2')
  const workers = [first, second]
  const oneWorker: DrainRound[] = []
  const twoWorkers: DrainRound[] = []
  const bare: BareSenderResult[] = []
  await stopWhenIdle(workers, databaseUrl)
  try {
    process.stdout.write('webhook workers at saturation (one, then two on one core):')
    for (let round = 1; round <= settings.rounds; round++) {
      process.stdout.write(` round ${round}/${settings.rounds}`)
      oneWorker.push(await drain(bench, receivers, subscribed, api, databaseUrl, [first]))
      twoWorkers.push(await drain(bench, receivers, subscribed, api, databaseUrl, workers))
      bare.push(await bareRun(bench, receivers, sampleBody))
    }
    process.stdout.write('\n')
  } finally {
    signal(workers, 'SIGCONT')
    await bench.stop(second)
  }
  const ratios = twoWorkers.map((two, i) => two.perSecond / oneWorker[i]!.perSecond)
  const bareCpuMicrosPerRequest = median(bare.map(run => run.cpuMicrosPerRequest))
  return {
    oneWorker,
    twoWorkers,
    bare,
    bareCpuMicrosPerRequest,
    deliveryOverBareCpu: median(oneWorker.map((one, i) => one.cpuMicrosPerDelivery / bare[i]!.cpuMicrosPerRequest)),
    perSecondPerCore: median(oneWorker.map(round => round.perSecond)),
    cpuMicrosPerDelivery: median(oneWorker.map(round => round.cpuMicrosPerDelivery)),
    cpuTargetMicros: CPU_PER_DELIVERY_TARGET_MICROS,
    twoOverOne: median(ratios),
    twoOverOneRounds: ratios,
    tolerance: SCALING_TOLERANCE
  }
}
