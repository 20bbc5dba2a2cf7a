// `npm run bench:workload`: the business routes on realistic data. A fresh PostgreSQL database is
// seeded (1,000 vagas, 100,000 candidatos with their action history by default); each operation of
// bench/workload-operations.ts is sent with random ids and filters, 64 connections, no pipelining, in
// the same run to three servers: the built service as the image runs it; a bare Fastify + `pg` server
// running the service's own SQL prepared (bench/workload-baseline.ts), which isolates what the
// application costs; and a plain Fastify + `pg` app written the straightforward way on node's default
// flags (bench/plain-app.ts), which is what a user compares the service with. Warm-up, then
// interleaved rounds, medians; the mixed scenario is measured again at a fixed offered rate of half
// its capacity, for the latency a client feels. Figures go to stdout and bench/results/workload.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.js'
import {
  choosePinning, compare, fmt, freePort, freshDatabase, medians, positiveInteger, printRows, profilingFlags, runLoad, startServer, stopServer, untilQuiet, waitFor, writeResults,
  type Comparison, type Figures, type Pinning, type Server
} from './harness.js'
import type { LoadResult } from './load-result.js'
import { plainAppScript, SHIPPED_NODE_FLAGS } from './shipped-process.js'
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

/** The service's goal for each operation, as a ratio to the plain app (and a p99 at half capacity for mixed). */
const TARGETS: Partial<Record<OperationName, number>> = {
  'candidato-read-v1': 2.0,
  'candidato-read-v2': 2.0,
  'candidatos-list-v1': 1.2,
  'candidatos-list-v2': 1.2,
  'vaga-candidatos-v1': 1.2,
  'vaga-candidatos-v2': 1.2,
  'candidato-create': 1.2,
  candidatar: 1.2,
  'aprovar+cancel': 1.2,
  mixed: 1.2
}
const MIXED_P99_TARGET_MS = 20
/**
 * Requests per second no server reaches with `candidatar` here (the service: about 4,000 to 6,000),
 * so a run never runs out of `cadastrado` candidatos: past the pool's end the ids come round again
 * and answer 409, which the run counts as unexpected.
 */
const CANDIDATAR_RATE_BOUND = 15_000

interface Side { server: Server, rounds: LoadResult[], atHalfCapacity: LoadResult[] }

type HalfCapacity = Figures & { offered: number }

interface OperationReport {
  name: OperationName
  /** Against the same SQL run bare. */
  sameSql: Comparison
  /** Against the plain app: the target applies to this ratio. */
  plain: Comparison
  target?: number
  /** Answers other than 2xx, errors and timeouts, on any side. */
  unexpectedAnswers: number
  atHalfCapacity?: { service: HalfCapacity, sameSql: HalfCapacity, plain: HalfCapacity }
  rounds: { service: LoadResult[], sameSql: LoadResult[], plain: LoadResult[] }
}

function unexpected (results: LoadResult[]): number {
  return results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0)
}

/** The rounds, each starting with another side: drift over the run (heat, neighbours) weighs on all alike. */
async function interleaved (sides: Side[], label: string, run: (side: Side) => Promise<void>): Promise<void> {
  for (let round = 0; round < settings.rounds; round++) {
    for (let i = 0; i < sides.length; i++) await run(sides[(round + i) % sides.length]!)
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

  async measure (operation: OperationName, servers: Servers): Promise<OperationReport> {
    process.stdout.write(`${operation}: warm-up ${settings.warmupSeconds} s each,`)
    const sides = { service: servers.service, sameSql: servers.sameSql, plain: servers.plain }
    for (const server of Object.values(sides)) await this.load(operation, server, settings.warmupSeconds)
    const of = {
      service: { server: sides.service, rounds: [], atHalfCapacity: [] },
      sameSql: { server: sides.sameSql, rounds: [], atHalfCapacity: [] },
      plain: { server: sides.plain, rounds: [], atHalfCapacity: [] }
    } satisfies Record<string, Side>
    const all = [of.service, of.sameSql, of.plain]
    await interleaved(all, 'round', async side => {
      side.rounds.push(await this.load(operation, side.server, settings.durationSeconds))
    })
    if (AT_HALF_CAPACITY.has(operation)) {
      await interleaved(all, 'half capacity', async side => {
        const rate = Math.max(1, Math.round(medians(side.rounds).requestsPerSecond / 2))
        side.atHalfCapacity.push(await this.load(operation, side.server, settings.durationSeconds, rate))
      })
    }
    process.stdout.write('\n')
    return report(operation, of)
  }
}

interface Servers { service: Server, sameSql: Server, plain: Server }

function report (name: OperationName, of: Record<keyof Servers, Side>): OperationReport {
  const halfOf = (side: Side) => ({ ...medians(side.atHalfCapacity), offered: Math.round(medians(side.rounds).requestsPerSecond / 2) })
  const sides = Object.values(of)
  return {
    name,
    sameSql: compare(of.service.rounds, of.sameSql.rounds),
    plain: compare(of.service.rounds, of.plain.rounds),
    target: TARGETS[name],
    unexpectedAnswers: unexpected(sides.flatMap(side => [...side.rounds, ...side.atHalfCapacity])),
    ...(of.service.atHalfCapacity.length > 0 && { atHalfCapacity: { service: halfOf(of.service), sameSql: halfOf(of.sameSql), plain: halfOf(of.plain) } }),
    rounds: { service: of.service.rounds, sameSql: of.sameSql.rounds, plain: of.plain.rounds }
  }
}

const SIDE_NAMES = { service: 'service', sameSql: 'same SQL, bare', plain: 'plain app' } as const

function printTable (reports: OperationReport[]): void {
  const rows = [['operation', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU', 'service ratio req/s', 'ratio CPU', 'target (plain app)']]
  const cpu = (figures: Figures) => figures.cpuMicrosPerRequest === undefined ? '-' : fmt(figures.cpuMicrosPerRequest, 0)
  const share = (figures: Figures) => figures.serverCpuShare === undefined ? '-' : `${fmt(figures.serverCpuShare * 100, 0)} %`
  const ratio = (c: Comparison) => `${c.ratio.toFixed(2)} (rounds ${Math.min(...c.roundRatios).toFixed(2)}-${Math.max(...c.roundRatios).toFixed(2)})`
  for (const r of reports) {
    const flag = r.unexpectedAnswers > 0 ? ` ${r.unexpectedAnswers} unexpected answers` : ''
    const verdict = r.target === undefined ? '' : `${r.plain.ratio >= r.target ? 'meets' : 'MISSES'} ≥ ${r.target.toFixed(2)}`
    const figures = { service: r.plain.service, sameSql: r.sameSql.baseline, plain: r.plain.baseline }
    for (const side of ['service', 'sameSql', 'plain'] as const) {
      const f = figures[side]
      const against = side === 'service' ? ['', '', `${verdict}${flag}`] : [ratio(r[side]), r[side].cpuRatio?.toFixed(2) ?? '-', '']
      rows.push([side === 'service' ? r.name : '', SIDE_NAMES[side], fmt(f.requestsPerSecond, 0), fmt(f.latencyP50, 1), fmt(f.latencyP99, 1), cpu(f), share(f), ...against])
    }
    if (r.atHalfCapacity === undefined) continue
    for (const side of ['service', 'sameSql', 'plain'] as const) {
      const f = r.atHalfCapacity[side]
      const p99Verdict = side === 'service' ? `p99 ${f.latencyP99 < MIXED_P99_TARGET_MS ? 'meets' : 'MISSES'} < ${MIXED_P99_TARGET_MS} ms` : ''
      rows.push([side === 'service' ? `${r.name} at half capacity` : '', SIDE_NAMES[side], `${fmt(f.requestsPerSecond, 0)} of ${fmt(f.offered, 0)}`, fmt(f.latencyP50, 1), fmt(f.latencyP99, 1), cpu(f), share(f), '', '', p99Verdict])
    }
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
    const service = await startServer('service', pinning, [...SHIPPED_NODE_FLAGS, ...profilingFlags(), 'dist/src/server.js'], {
      ...base, ...serviceEnv, LOG_LEVEL: 'info', DATA_DIR: join(scratch, 'data'), PORT: String(await freePort())
    })
    servers.push(service)
    await waitFor(service.baseUrl, '/health/ready', 200, 60_000, service.child)
    const baselineEnv = { ...base, NODE_ENV: 'production', DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(settings.poolSize) }
    // The same SQL runs with the service's V8 flags, so that ratio compares the applications alone.
    const sameSql = await startServer('same SQL', pinning, [...SHIPPED_NODE_FLAGS, '--import=tsx', 'bench/workload-baseline.ts'], { ...baselineEnv, PORT: String(await freePort()) })
    servers.push(sameSql)
    const plain = await startServer('plain app', pinning, [plainAppScript()], { ...baselineEnv, PORT: String(await freePort()) })
    servers.push(plain)

    const workload = new Workload(pinning, database.url, data, dataFile, authorization, servers)
    const reports: OperationReport[] = []
    for (const operation of operations) reports.push(await workload.measure(operation, { service, sameSql, plain }))

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
