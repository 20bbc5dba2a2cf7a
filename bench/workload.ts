// `npm run bench:workload`: the business routes on realistic data. A fresh PostgreSQL database is
// seeded (1,000 vagas, 100,000 candidatos with their action history by default); each operation of
// bench/workload-operations.ts is sent with random ids and filters, 64 connections, no pipelining, to
// the built service and to a bare Fastify + `pg` server running the same SQL prepared
// (bench/workload-baseline.ts), in the same run: warm-up, then interleaved rounds, medians. The
// mixed scenario is measured again at a fixed offered rate of half its capacity, for the latency a
// client feels. Figures go to stdout and bench/results/workload.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.js'
import {
  choosePinning, compare, fmt, freePort, freshDatabase, medians, positiveInteger, printRows, profilingFlags, runLoad, startServer, stopServer, untilQuiet, waitFor, writeResults,
  type Comparison, type Figures, type Pinning, type Server
} from './harness.js'
import type { LoadResult } from './load-result.js'
import { restoreWorkload, seedWorkload, untilDatabaseIdle } from './workload-data.js'
import type { WorkloadLoadOptions } from './workload-load.js'
import { OPERATIONS, type OperationName, type WorkloadData } from './workload-operations.js'
import { assertSameStatements, serviceStatements } from './workload-statements.js'

const settings = {
  vagas: positiveInteger('BENCH_VAGAS', 1000),
  candidatos: positiveInteger('BENCH_CANDIDATOS', 100_000),
  connections: 64,
  poolSize: positiveInteger('BENCH_POOL_SIZE', 10),
  durationSeconds: positiveInteger('BENCH_DURATION', 10),
  warmupSeconds: positiveInteger('BENCH_WARMUP', 5),
  rounds: positiveInteger('BENCH_ROUNDS', 3)
}
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Operations that change data: the write pools are restored before each of their runs. */
const WRITES = new Set<OperationName>(['candidato-create', 'candidatar', 'aprovar+cancel', 'mixed'])
/** Operations also measured at a fixed offered rate of half their capacity. */
const AT_HALF_CAPACITY = new Set<OperationName>(['mixed'])

/** What the issue asks of each operation, as a ratio to the baseline (or a p99 at half capacity). */
const TARGETS: Partial<Record<OperationName, number>> = {
  ping: 0.75,
  'candidato-read-v1': 2.0,
  'candidato-read-v2': 2.0,
  'candidatos-list-v1': 1.0,
  'candidatos-list-v2': 1.0,
  'vaga-candidatos-v1': 1.0,
  'vaga-candidatos-v2': 1.0,
  'vagas-list-v1': 1.0,
  'vagas-list-v2': 1.0,
  'candidato-create': 1.0,
  candidatar: 1.0,
  'aprovar+cancel': 1.0
}
const MIXED_P99_TARGET_MS = 20
/**
 * Requests per second no server reaches with `candidatar` here (the service: about 4,000 to 6,000),
 * so a run never runs out of `cadastrado` candidatos: past the pool's end the ids come round again
 * and answer 409, which the run counts as unexpected.
 */
const CANDIDATAR_RATE_BOUND = 15_000

interface Side { server: Server, rounds: LoadResult[], atHalfCapacity: LoadResult[] }

interface OperationReport extends Comparison {
  name: OperationName
  target?: number
  /** Answers other than 2xx, errors and timeouts, on either side. */
  unexpectedAnswers: number
  atHalfCapacity?: { service: Figures & { offered: number }, baseline: Figures & { offered: number } }
  rounds: { service: LoadResult[], baseline: LoadResult[] }
}

function unexpected (results: LoadResult[]): number {
  return results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0)
}

/** The rounds, service then baseline, then baseline then service: drift over the run (heat, neighbours) weighs on both alike. */
async function interleaved (service: Side, baseline: Side, label: string, run: (side: Side) => Promise<void>): Promise<void> {
  for (let round = 0; round < settings.rounds; round++) {
    for (const side of round % 2 === 0 ? [service, baseline] : [baseline, service]) await run(side)
    process.stdout.write(` ${label} ${round + 1}/${settings.rounds}`)
  }
}

class Workload {
  constructor (
    private readonly pinning: Pinning,
    private readonly databaseUrl: string,
    private readonly data: WorkloadData,
    private readonly dataFile: string,
    private readonly authorization: string,
    private readonly servers: Server[]
  ) {}

  private runs = 0

  async load (operation: OperationName, server: Server, durationSeconds: number, offeredRate?: number): Promise<LoadResult> {
    await untilQuiet(this.servers)
    await untilDatabaseIdle(this.databaseUrl)
    if (WRITES.has(operation)) await restoreWorkload(this.databaseUrl, this.data)
    const options: WorkloadLoadOptions = {
      baseUrl: server.baseUrl,
      operation,
      dataFile: this.dataFile,
      authorization: this.authorization,
      tag: `${process.pid}-${this.runs++}`,
      connections: settings.connections,
      duration: durationSeconds,
      offeredRate
    }
    return await runLoad(this.pinning, server, 'bench/workload-load.ts', options)
  }

  async measure (operation: OperationName, service: Server, baseline: Server): Promise<OperationReport> {
    process.stdout.write(`${operation}: warm-up ${settings.warmupSeconds} s each,`)
    for (const server of [service, baseline]) await this.load(operation, server, settings.warmupSeconds)
    const sides: Side[] = [service, baseline].map(server => ({ server, rounds: [], atHalfCapacity: [] }))
    const [ofService, ofBaseline] = sides as [Side, Side]
    await interleaved(ofService, ofBaseline, 'round', async side => {
      side.rounds.push(await this.load(operation, side.server, settings.durationSeconds))
    })
    if (AT_HALF_CAPACITY.has(operation)) {
      await interleaved(ofService, ofBaseline, 'half capacity', async side => {
        const rate = Math.max(1, Math.round(medians(side.rounds).requestsPerSecond / 2))
        side.atHalfCapacity.push(await this.load(operation, side.server, settings.durationSeconds, rate))
      })
    }
    process.stdout.write('\n')
    return report(operation, ofService, ofBaseline)
  }
}

function report (name: OperationName, service: Side, baseline: Side): OperationReport {
  const comparison = compare(service.rounds, baseline.rounds)
  const halfOf = (side: Side, figures: Figures) => ({ ...medians(side.atHalfCapacity), offered: Math.round(figures.requestsPerSecond / 2) })
  const { service: ofService, baseline: ofBaseline } = comparison
  return {
    name,
    ...comparison,
    target: TARGETS[name],
    unexpectedAnswers: unexpected([...service.rounds, ...baseline.rounds, ...service.atHalfCapacity, ...baseline.atHalfCapacity]),
    ...(service.atHalfCapacity.length > 0 && { atHalfCapacity: { service: halfOf(service, ofService), baseline: halfOf(baseline, ofBaseline) } }),
    rounds: { service: service.rounds, baseline: baseline.rounds }
  }
}

function printTable (reports: OperationReport[]): void {
  const rows = [['operation', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU', 'ratio req/s', 'ratio CPU', 'target']]
  const cpu = (figures: Figures) => figures.cpuMicrosPerRequest === undefined ? '-' : fmt(figures.cpuMicrosPerRequest, 0)
  const share = (figures: Figures) => figures.serverCpuShare === undefined ? '-' : `${fmt(figures.serverCpuShare * 100, 0)} %`
  for (const r of reports) {
    const spread = `${Math.min(...r.roundRatios).toFixed(2)}-${Math.max(...r.roundRatios).toFixed(2)}`
    const flag = r.unexpectedAnswers > 0 ? `, ${r.unexpectedAnswers} unexpected answers` : ''
    const verdict = r.target === undefined ? '' : `${r.ratio >= r.target ? 'meets' : 'MISSES'} ≥ ${r.target.toFixed(2)}`
    rows.push([r.name, 'service', fmt(r.service.requestsPerSecond, 0), fmt(r.service.latencyP50, 1), fmt(r.service.latencyP99, 1), cpu(r.service), share(r.service),
      `${r.ratio.toFixed(2)} (rounds ${spread}${flag})`, r.cpuRatio?.toFixed(2) ?? '-', verdict])
    rows.push(['', 'baseline', fmt(r.baseline.requestsPerSecond, 0), fmt(r.baseline.latencyP50, 1), fmt(r.baseline.latencyP99, 1), cpu(r.baseline), share(r.baseline), '', '', ''])
    if (r.atHalfCapacity === undefined) continue
    const { service, baseline } = r.atHalfCapacity
    const p99Verdict = `p99 ${service.latencyP99 < MIXED_P99_TARGET_MS ? 'meets' : 'MISSES'} < ${MIXED_P99_TARGET_MS} ms`
    rows.push([`${r.name} at half capacity`, 'service', `${fmt(service.requestsPerSecond, 0)} of ${fmt(service.offered, 0)}`, fmt(service.latencyP50, 1), fmt(service.latencyP99, 1), cpu(service), share(service), '', '', p99Verdict])
    rows.push(['', 'baseline', `${fmt(baseline.requestsPerSecond, 0)} of ${fmt(baseline.offered, 0)}`, fmt(baseline.latencyP50, 1), fmt(baseline.latencyP99, 1), cpu(baseline), share(baseline), '', '', ''])
  }
  printRows(rows)
}

function selectedOperations (): OperationName[] {
  const all = Object.keys(OPERATIONS) as OperationName[]
  const only = process.env.BENCH_OPERATIONS?.split(',').map(name => name.trim()).filter(name => name !== '')
  if (only === undefined) return all
  const unknown = only.filter(name => !all.includes(name as OperationName))
  if (unknown.length > 0) throw new Error(`no operation named ${unknown.join(', ')}; known: ${all.join(', ')}`)
  return only as OperationName[]
}

async function main (): Promise<number> {
  const operations = selectedOperations()
  const pinning = choosePinning()
  process.stdout.write(`${settings.vagas} vagas, ${settings.candidatos} candidatos; ${settings.connections} connections, no pipelining, ` +
    `${settings.poolSize} database connections per server; ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s ` +
    `after a ${settings.warmupSeconds} s warm-up; ${pinning.note}\n`)

  const database = await freshDatabase(serverUrl, 'bench_workload')
  const scratch = mkdtempSync(join(tmpdir(), 'bench-workload-'))
  const servers: Server[] = []
  try {
    process.stdout.write('seeding ...\n')
    const data = await seedWorkload(database.url, {
      vagas: settings.vagas, candidatos: settings.candidatos, readSample: 20_000, cadastrados: settings.durationSeconds * CANDIDATAR_RATE_BOUND
    })
    const dataFile = join(scratch, 'data.json')
    writeFileSync(dataFile, JSON.stringify(data))
    const authorization = `Bearer ${await mintToken({ sub: 'bench', scope: 'vagas:read candidatos:read candidatos:write', ttl: 24 * 3600 })}`

    // As in bench/scenarios.ts: no rate limit (one client makes the load), no shedding (saturation is
    // the point), and queries wait for a pooled connection as long as it takes.
    const serviceEnv = {
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(settings.poolSize),
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_MAX: '0',
      SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      DATABASE_POOL_TIMEOUT_MS: '600000',
      NODE_ENV: 'production'
    }
    assertSameStatements(await serviceStatements(serviceEnv, data, authorization))
    process.stdout.write('the baseline runs the statements the service sends\n')

    const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1' }
    const service = await startServer('service', pinning, [...profilingFlags(), 'dist/src/server.js'], {
      ...base, ...serviceEnv, LOG_LEVEL: 'info', DATA_DIR: join(scratch, 'data'), PORT: String(await freePort())
    })
    servers.push(service)
    await waitFor(service.baseUrl, '/health/ready', 200, 60_000, service.child)
    const baseline = await startServer('baseline', pinning, ['--import=tsx', 'bench/workload-baseline.ts'], {
      ...base, NODE_ENV: 'production', DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(settings.poolSize), PORT: String(await freePort())
    })
    servers.push(baseline)

    const workload = new Workload(pinning, database.url, data, dataFile, authorization, servers)
    const reports: OperationReport[] = []
    for (const operation of operations) reports.push(await workload.measure(operation, service, baseline))

    printTable(reports)
    writeResults('workload.json', pinning, { settings, operations: reports })
    return reports.some(r => r.unexpectedAnswers > 0) ? 1 : 0
  } finally {
    for (const server of servers) await stopServer(server)
    await database.drop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`bench:workload failed: ${(error as Error).message}\n`)
  process.exitCode = 1
}
