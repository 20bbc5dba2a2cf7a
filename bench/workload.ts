// `npm run bench:workload`: the business routes on realistic data. A fresh PostgreSQL database is
// seeded (1,000 vagas, 100,000 candidatos with their action history by default); each operation of
// bench/workload-operations.ts is sent with random ids and filters, 64 connections, no pipelining, in
// the same run to three servers: the built service as the image runs it; the yardstick, a Fastify +
// `pg` app written the straightforward way that answers the same JSON for the same URLs
// (bench/same-json-app.ts), checked to answer as the service does before anything is measured
// (bench/workload-equality.ts); and a plain app that answers bare rows (bench/plain-app.ts), both on
// node's default flags. Warm-up, then interleaved rounds, medians; the mixed scenario is measured again
// at a fixed offered rate of half its capacity, for the latency a client feels. The `webhooks` section (bench/workload-webhooks.ts)
// measures the actions with 10 webhook subscriptions against without, and the time from an event's
// commit to its delivery. Figures go to stdout and bench/results/workload.json.
import { choosePinning, compare, fmt, medians, printRows, profilingFlags, writeResults, type Comparison, type Figures, type Server } from './harness.ts'
import type { LoadResult } from './load-result.ts'
import { SHIPPED_NODE_FLAGS } from './shipped-process.ts'
import { OPERATIONS, type OperationName } from './workload-operations.ts'
import { selectedOperations, settings, unexpected, WorkloadBench, type Side } from './workload-runs.ts'
import { assertSameAnswers } from './workload-equality.ts'
import { measureWebhooks, printWebhooks, type WebhooksReport } from './workload-webhooks.ts'

/** Operations also measured at a fixed offered rate of half their capacity. */
const AT_HALF_CAPACITY = new Set<OperationName>(['mixed'])

/** The service's goal for each operation, as a ratio to the same-JSON app (and for mixed, a p99 at half capacity no higher than the app's). */
const TARGETS: Partial<Record<OperationName, number>> = {
  'candidato-read-v1': 1.5,
  'candidato-read-v2': 1.5,
  'candidatos-list-v1': 1.2,
  'candidatos-list-v2': 1.2,
  'vaga-candidatos-v1': 1.2,
  'vaga-candidatos-v2': 1.2,
  'candidato-create': 1.0,
  candidatar: 1.0,
  'aprovar+cancel': 1.0,
  mixed: 1.2
}
type HalfCapacity = Figures & { offered: number }

interface OperationReport {
  name: OperationName
  /** Against the same-JSON app: the target applies to this ratio. */
  sameJson: Comparison
  /** Against the plain app, which answers bare rows. */
  plain: Comparison
  target?: number
  /** Answers other than 2xx, errors and timeouts, on any side. */
  unexpectedAnswers: number
  atHalfCapacity?: { service: HalfCapacity, sameJson: HalfCapacity, plain: HalfCapacity }
  rounds: { service: LoadResult[], sameJson: LoadResult[], plain: LoadResult[] }
}

interface Servers { service: Server, sameJson: Server, plain: Server }

function report (name: OperationName, of: Record<keyof Servers, Side>): OperationReport {
  const halfOf = (side: Side) => ({ ...medians(side.atHalfCapacity), offered: Math.round(medians(side.rounds).requestsPerSecond / 2) })
  const sides = Object.values(of)
  return {
    name,
    sameJson: compare(of.service.rounds, of.sameJson.rounds),
    plain: compare(of.service.rounds, of.plain.rounds),
    target: TARGETS[name],
    unexpectedAnswers: unexpected(sides.flatMap(side => [...side.rounds, ...side.atHalfCapacity])),
    ...(of.service.atHalfCapacity.length > 0 && { atHalfCapacity: { service: halfOf(of.service), sameJson: halfOf(of.sameJson), plain: halfOf(of.plain) } }),
    rounds: { service: of.service.rounds, sameJson: of.sameJson.rounds, plain: of.plain.rounds }
  }
}

const SIDE_NAMES = { service: 'service', sameJson: 'same-JSON app', plain: 'plain app (bare rows)' } as const

function printTable (reports: OperationReport[]): void {
  const rows = [['operation', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU', 'database CPU µs/req', 'service ratio req/s', 'ratio CPU', 'target (same-JSON app)']]
  const cpu = (figures: Figures) => figures.cpuMicrosPerRequest === undefined ? '-' : fmt(figures.cpuMicrosPerRequest, 0)
  const databaseCpu = (figures: Figures) => figures.databaseCpuMicrosPerRequest === undefined ? '-' : fmt(figures.databaseCpuMicrosPerRequest, 0)
  const share = (figures: Figures) => figures.serverCpuShare === undefined ? '-' : `${fmt(figures.serverCpuShare * 100, 0)} %`
  const ratio = (c: Comparison) => `${c.ratio.toFixed(2)} (rounds ${Math.min(...c.roundRatios).toFixed(2)}-${Math.max(...c.roundRatios).toFixed(2)})`
  for (const r of reports) {
    const flag = r.unexpectedAnswers > 0 ? ` ${r.unexpectedAnswers} unexpected answers` : ''
    const verdict = r.target === undefined ? '' : `${r.sameJson.ratio >= r.target ? 'meets' : 'MISSES'} ≥ ${r.target.toFixed(2)}`
    const figures = { service: r.sameJson.service, sameJson: r.sameJson.baseline, plain: r.plain.baseline }
    for (const side of ['service', 'sameJson', 'plain'] as const) {
      const f = figures[side]
      const against = side === 'service' ? ['', '', `${verdict}${flag}`] : [ratio(r[side]), r[side].cpuRatio?.toFixed(2) ?? '-', '']
      rows.push([side === 'service' ? r.name : '', SIDE_NAMES[side], fmt(f.requestsPerSecond, 0), fmt(f.latencyP50, 1), fmt(f.latencyP99, 1), cpu(f), share(f), databaseCpu(f), ...against])
    }
    if (r.atHalfCapacity === undefined) continue
    const appP99 = r.atHalfCapacity.sameJson.latencyP99
    for (const side of ['service', 'sameJson', 'plain'] as const) {
      const f = r.atHalfCapacity[side]
      const p99Verdict = side === 'service' ? `p99 ${f.latencyP99 <= appP99 ? 'meets' : 'MISSES'} ≤ the same-JSON app's` : ''
      rows.push([side === 'service' ? `${r.name} at half capacity` : '', SIDE_NAMES[side], `${fmt(f.requestsPerSecond, 0)} of ${fmt(f.offered, 0)}`, fmt(f.latencyP50, 1), fmt(f.latencyP99, 1), cpu(f), share(f), databaseCpu(f), '', '', p99Verdict])
    }
  }
  printRows(rows)
}

async function main (): Promise<number> {
  const chosen = selectedOperations<OperationName | 'webhooks'>([...Object.keys(OPERATIONS) as OperationName[], 'webhooks'])
  const operations = chosen.filter((name): name is OperationName => name !== 'webhooks')
  const pinning = choosePinning()
  process.stdout.write(`${settings.vagas} vagas, ${settings.candidatos} candidatos; ${settings.connections} connections, no pipelining, ` +
    `${settings.poolSize} database connections per server; ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s ` +
    `after a ${settings.warmupSeconds} s warm-up; ${pinning.note}\n`)

  const bench = await WorkloadBench.seeded(pinning, 'bench_workload')
  try {
    // The servers with and without subscriptions each have their own data; copied before anything connects.
    const webhooksData = chosen.includes('webhooks') ? await bench.copyDatabase('bench_workload_webhooks') : undefined
    const reports: OperationReport[] = []
    if (operations.length > 0) {
      const service = await bench.startService('service', { nodeFlags: [...SHIPPED_NODE_FLAGS, ...profilingFlags()] })
      const sameJson = await bench.startSameJsonApp()
      const plain = await bench.startPlainApp()
      process.stdout.write('checking that the same-JSON app answers as the service:')
      await assertSameAnswers({ service, app: sameJson }, bench.data, bench.authorization, bench.databaseUrl)
      for (const operation of operations) {
        reports.push(report(operation, await bench.measure(operation, { service, sameJson, plain }, AT_HALF_CAPACITY.has(operation))))
      }
      printTable(reports)
    }
    const webhooks: WebhooksReport | undefined = webhooksData === undefined ? undefined : await measureWebhooks(bench, webhooksData)
    if (webhooks !== undefined) printWebhooks(webhooks)
    writeResults('workload.json', pinning, { settings, operations: reports, ...(webhooks !== undefined && { webhooks }) })
    const wrong = reports.reduce((sum, r) => sum + r.unexpectedAnswers, 0) + (webhooks?.unexpectedAnswers ?? 0) + (webhooks?.delivery.unverified ?? 0) +
      [...webhooks?.workers.oneWorker ?? [], ...webhooks?.workers.twoWorkers ?? []].reduce((sum, round) => sum + round.unverified, 0)
    return wrong > 0 ? 1 : 0
  } finally {
    await bench.close()
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`bench:workload failed: ${(error as Error).message}\n`)
  process.exitCode = 1
}
