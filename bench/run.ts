// `npm run bench`: each scenario of bench/scenarios.ts against the built service and against a bare
// Fastify baseline, in the same run with the same settings. Servers share one core, autocannon gets
// the other, so the ratio measures the servers and not the load generator. Warm-up, then interleaved
// A/B rounds; the medians are printed and written to bench/results/latest.json.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OTLP_SINK, startOtlpSink } from './otlp-sink.ts'
import type { LoadOptions, LoadResult } from './load.ts'
import { scenarios, type PreparedRequest, type Scenario } from './scenarios.ts'
import { choosePinning, compare, fmt, freePort, median, positiveInteger, printRows, profilingFlags, runLoad, startServer, stopServer, waitFor, writeResults, type Figures, type Pinning, type Server } from './harness.ts'
import { SHIPPED_NODE_FLAGS, shippedEnvironment } from './shipped-process.ts'

const settings = {
  connections: 100,
  pipelining: 10,
  durationSeconds: positiveInteger('BENCH_DURATION', 5),
  warmupSeconds: positiveInteger('BENCH_WARMUP', 3),
  rounds: positiveInteger('BENCH_ROUNDS', 3)
}

// ---- load ----------------------------------------------------------------------------------------

interface BenchRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  expectStatus: number
  connections?: number
  pipelining?: number
  /** Sent to the service (not the baseline) alongside, for as long as the measured load runs. */
  background?: Required<PreparedRequest>['background']
}

async function autocannon (pinning: Pinning, server: Server, request: Omit<BenchRequest, 'expectStatus'>, durationSeconds: number): Promise<LoadResult> {
  const options: LoadOptions = {
    url: server.baseUrl + request.path,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: request.connections ?? settings.connections,
    pipelining: request.pipelining ?? settings.pipelining,
    duration: durationSeconds
  }
  return await runLoad(pinning, server, 'bench/load.ts', options)
}

async function load (pinning: Pinning, server: Server, request: BenchRequest, durationSeconds: number): Promise<LoadResult> {
  const background = request.background !== undefined && server.name === 'service'
    ? autocannon(pinning, server, { method: 'GET', pipelining: 1, ...request.background }, durationSeconds)
    : undefined
  const result = await autocannon(pinning, server, request, durationSeconds)
  // The background load counts too: a scenario whose background requests failed measured nothing.
  const behind = await background
  if (behind !== undefined) result.errors += unexpectedAnswers(behind, 200)
  return result
}

function unexpectedAnswers (result: LoadResult, expectStatus: number): number {
  let unexpected = result.errors + result.timeouts
  for (const [code, count] of Object.entries(result.statusCodes)) if (Number(code) !== expectStatus) unexpected += count
  return unexpected
}

// ---- figures -------------------------------------------------------------------------------------

interface ScenarioReport {
  name: string
  method: string
  path: string
  service: Figures & { rounds: LoadResult[] }
  baseline: Figures & { rounds: LoadResult[] }
  /** Median over the rounds of service req/s ÷ baseline req/s measured side by side in that round. */
  ratio: number
  roundRatios: number[]
  /** Baseline CPU time per request ÷ the service's: the same ratio seen through CPU cost. */
  cpuRatio?: number
  /** In a group: the median over the rounds of this scenario's req/s ÷ the group's first scenario's. */
  relative?: { to: string, ratio: number, roundRatios: number[] }
  /** This scenario's ratio ÷ the named scenario's ratio: two service processes compared through one baseline. */
  versus?: { to: string, ratio: number }
  target?: number
  maxLatencyP99Ms?: number
  unexpectedAnswers: number
}

function printTable (reports: ScenarioReport[]): void {
  const rows = [['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'ratio req/s', 'ratio CPU']]
  for (const report of reports) {
    const spread = `${Math.min(...report.roundRatios).toFixed(2)}-${Math.max(...report.roundRatios).toFixed(2)}`
    const flag = report.unexpectedAnswers > 0 ? `, ${report.unexpectedAnswers} unexpected answers` : ''
    const cpu = (figures: Figures) => figures.cpuMicrosPerRequest === undefined ? '-' : fmt(figures.cpuMicrosPerRequest, 1)
    rows.push([report.name, 'service', fmt(report.service.requestsPerSecond, 0), fmt(report.service.latencyP50, 1), fmt(report.service.latencyP99, 1), cpu(report.service),
      `${report.ratio.toFixed(2)} (rounds ${spread}${flag})`, report.cpuRatio?.toFixed(2) ?? '-'])
    rows.push(['', 'baseline', fmt(report.baseline.requestsPerSecond, 0), fmt(report.baseline.latencyP50, 1), fmt(report.baseline.latencyP99, 1), cpu(report.baseline), '', ''])
  }
  printRows(rows)
  const compared = reports.filter(report => report.versus !== undefined)
  if (compared.length > 0) process.stdout.write('\nBetween service processes, each one\'s ratio to the baseline divided by the other\'s:\n')
  for (const { name, versus } of compared) process.stdout.write(`  ${name} / ${versus!.to}: ${versus!.ratio.toFixed(2)}\n`)
  const related = reports.filter(report => report.relative !== undefined)
  if (related.length === 0) return
  process.stdout.write('\nWithin one service process, req/s against the group\'s first scenario (median of the rounds):\n')
  for (const { name, relative } of related) {
    const { to, ratio, roundRatios } = relative!
    process.stdout.write(`  ${name} / ${to}: ${ratio.toFixed(2)} (rounds ${Math.min(...roundRatios).toFixed(2)}-${Math.max(...roundRatios).toFixed(2)})\n`)
  }
}

// ---- the run -------------------------------------------------------------------------------------

interface Target { server: Server, expectStatus: number, rounds: LoadResult[] }
interface Measurement { scenario: Scenario, request: BenchRequest, service: Target, baseline: Target }

/** The scenarios that share one service process: a group, or a scenario alone. */
function units (selected: Scenario[]): Scenario[][] {
  const byGroup = new Map<string, Scenario[]>()
  const result: Scenario[][] = []
  for (const scenario of selected) {
    if (scenario.group === undefined) { result.push([scenario]); continue }
    let members = byGroup.get(scenario.group)
    if (members === undefined) {
      members = []
      byGroup.set(scenario.group, members)
      result.push(members)
    }
    members.push(scenario)
  }
  return result
}

/** Scenarios with the same settings and node arguments share a service process. */
function processKey (scenario: Scenario): string {
  return JSON.stringify([scenario.env ?? {}, scenario.nodeArgs ?? []])
}

function report (measurement: Measurement, reference?: Measurement): ScenarioReport {
  const { scenario, request, service, baseline } = measurement
  const comparison = compare(service.rounds, baseline.rounds)
  const unexpected = service.rounds.reduce((sum, result) => sum + unexpectedAnswers(result, service.expectStatus), 0) +
    baseline.rounds.reduce((sum, result) => sum + unexpectedAnswers(result, baseline.expectStatus), 0)
  const relativeRounds = reference === undefined || reference === measurement
    ? undefined
    : service.rounds.map((result, round) => result.requestsPerSecond / reference.service.rounds[round]!.requestsPerSecond)
  return {
    name: scenario.name,
    method: request.method,
    path: request.path,
    ...comparison,
    service: { ...comparison.service, rounds: service.rounds },
    baseline: { ...comparison.baseline, rounds: baseline.rounds },
    relative: relativeRounds === undefined ? undefined : { to: reference!.scenario.name, ratio: median(relativeRounds), roundRatios: relativeRounds },
    target: scenario.target,
    maxLatencyP99Ms: scenario.maxLatencyP99Ms,
    unexpectedAnswers: unexpected
  }
}

/**
 * Measures the scenarios of one unit against one service process: each is set up, warmed up, then
 * measured in interleaved rounds next to the baseline. Within a group every scenario is measured in
 * every round, so the ratio of one to the group's first compares requests, not processes.
 */
async function measure (unit: Scenario[], pinning: Pinning, baseline: Server, dataDir: string, otlpSink: string): Promise<ScenarioReport[]> {
  const first = unit[0]!
  // One service process per distinct setup in the unit (most units have one).
  const processes = new Map<string, { service: Server, env: Record<string, string> }>()
  async function processFor (scenario: Scenario): Promise<{ service: Server, env: Record<string, string> }> {
    const key = processKey(scenario)
    let running = processes.get(key)
    if (running === undefined) {
      const env = shippedEnvironment({
        PORT: String(await freePort()),
        DATA_DIR: join(dataDir, `${first.group ?? first.name}-${processes.size}`),
        ...Object.fromEntries(Object.entries(scenario.env ?? {}).map(([name, value]) => [name, value.replaceAll(OTLP_SINK, otlpSink)]))
      })
      for (const member of unit) if (processKey(member) === key) await member.prepare?.(env)
      running = { service: await startServer('service', pinning, [...SHIPPED_NODE_FLAGS, ...profilingFlags(), ...scenario.nodeArgs ?? [], 'dist/src/server.js'], env), env }
      processes.set(key, running)
    }
    return running
  }
  try {
    const measurements: Measurement[] = []
    for (const scenario of unit) {
      const { service, env } = await processFor(scenario)
      const prepared: PreparedRequest = await scenario.setup?.({
        baseUrl: service.baseUrl,
        env,
        waitFor: async (path, status, timeoutMs) => await waitFor(service.baseUrl, path, status, timeoutMs, service.child)
      }) ?? {}
      const request: BenchRequest = {
        method: scenario.method,
        path: prepared.path ?? scenario.path,
        headers: { ...scenario.headers, ...prepared.headers },
        body: prepared.body ?? scenario.body,
        expectStatus: scenario.expectStatus ?? 200,
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        background: prepared.background
      }
      measurements.push({
        scenario,
        request,
        service: { server: service, expectStatus: request.expectStatus, rounds: [] },
        baseline: { server: baseline, expectStatus: 200, rounds: [] }
      })
    }
    for (const { scenario, request, service: ofService, baseline: ofBaseline } of measurements) {
      process.stdout.write(`${scenario.name}: ${request.method} ${request.path}, warm-up ${settings.warmupSeconds} s each\n`)
      for (const target of [ofService, ofBaseline]) await load(pinning, target.server, request, settings.warmupSeconds)
    }
    process.stdout.write(unit.length > 1 ? `group ${first.group}:` : `${first.name}:`)
    for (let round = 0; round < settings.rounds; round++) {
      // A B, then B A: drift over the run (heat, neighbours) weighs on both sides alike.
      for (const { request, service: ofService, baseline: ofBaseline } of measurements) {
        for (const target of round % 2 === 0 ? [ofService, ofBaseline] : [ofBaseline, ofService]) {
          target.rounds.push(await load(pinning, target.server, request, settings.durationSeconds))
        }
      }
      process.stdout.write(` round ${round + 1}/${settings.rounds}`)
    }
    process.stdout.write('\n')
    const referenceOf = (scenario: Scenario) => unit.length === 1
      ? undefined
      : measurements.find(measurement => measurement.scenario.name === scenario.relativeTo) ?? measurements[0]
    return measurements.map(measurement => report(measurement, referenceOf(measurement.scenario)))
  } finally {
    for (const { service } of processes.values()) await stopServer(service)
  }
}

async function main (): Promise<number> {
  const only = process.env.BENCH_SCENARIOS?.split(',').map(name => name.trim()).filter(name => name !== '')
  const selected = only === undefined ? scenarios : scenarios.filter(scenario => only.includes(scenario.name))
  if (selected.length === 0) throw new Error(`no scenario named ${only?.join(', ')}; known: ${scenarios.map(s => s.name).join(', ')}`)

  const pinning = choosePinning()
  process.stdout.write(`${settings.connections} connections, pipelining ${settings.pipelining}, ` +
    `${settings.rounds} interleaved rounds of ${settings.durationSeconds} s after a ${settings.warmupSeconds} s warm-up; ${pinning.note}\n`)

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'))
  const otlpSink = await startOtlpSink()
  const baselineEnv = shippedEnvironment({ PORT: String(await freePort()) })
  // Bare Fastify as anyone runs it: node's default flags.
  const baseline = await startServer('baseline', pinning, ['bench/baseline.ts'], baselineEnv)
  const reports: ScenarioReport[] = []
  try {
    for (const unit of units(selected)) reports.push(...await measure(unit, pinning, baseline, dataDir, otlpSink.url))
  } finally {
    await stopServer(baseline)
    const { requests, bytes } = otlpSink.received()
    if (requests > 0) process.stdout.write(`the OTLP sink received ${requests} export requests (${bytes} bytes)\n`)
    await otlpSink.close()
    rmSync(dataDir, { recursive: true, force: true })
  }

  for (const report of reports) {
    const versus = selected.find(scenario => scenario.name === report.name)?.versus
    const other = reports.find(candidate => candidate.name === versus)
    if (versus !== undefined && other !== undefined) report.versus = { to: versus, ratio: report.ratio / other.ratio }
  }
  printTable(reports)
  writeResults('latest.json', pinning, { settings, scenarios: reports })

  for (const report of reports) {
    if (report.maxLatencyP99Ms !== undefined) {
      // Latency counts only answered requests: a probe sent one at a time that stays within the bound
      // also answers at least 1000 / bound times a second, or it waited on answers that never came.
      const { latencyP99: p99, requestsPerSecond } = report.service
      const met = p99 < report.maxLatencyP99Ms && requestsPerSecond >= 1000 / report.maxLatencyP99Ms
      process.stdout.write(`${report.name}: p99 ${p99.toFixed(1)} ms at ${fmt(requestsPerSecond, 0)} req/s ${met ? 'meets' : 'MISSES'} the bound of ${report.maxLatencyP99Ms} ms\n`)
    }
    if (report.target === undefined) continue
    const [ratio, of] = report.versus !== undefined
      ? [report.versus.ratio, `${report.versus.to} (each a ratio to the baseline)`]
      : report.relative === undefined ? [report.ratio, 'the baseline'] : [report.relative.ratio, report.relative.to]
    const verdict = ratio >= report.target ? 'meets' : 'MISSES'
    process.stdout.write(`${report.name}: ${ratio.toFixed(2)} of ${of} ${verdict} the target of ${report.target.toFixed(2)}\n`)
  }
  return reports.some(report => report.unexpectedAnswers > 0) ? 1 : 0
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).message}\n`)
  process.exitCode = 1
}
