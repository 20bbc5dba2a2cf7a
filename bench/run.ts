// `npm run bench`: each scenario of bench/scenarios.ts against the built service and against a bare
// Fastify baseline, in the same run with the same settings. Servers share one core, autocannon gets
// the other, so the ratio measures the servers and not the load generator. Warm-up, then interleaved
// A/B rounds; the medians are printed and written to bench/results/latest.json.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { once } from 'node:events'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { OTLP_SINK, startOtlpSink } from './otlp-sink.js'
import type { LoadOptions, LoadResult } from './load.js'
import { scenarios, type PreparedRequest, type Scenario } from './scenarios.js'
import { SHIPPED_NODE_OPTIONS } from './node-options.js'

const root = resolve(import.meta.dirname, '..')
const settings = {
  connections: 100,
  pipelining: 10,
  durationSeconds: positiveInteger('BENCH_DURATION', 5),
  warmupSeconds: positiveInteger('BENCH_WARMUP', 3),
  rounds: positiveInteger('BENCH_ROUNDS', 3)
}

function positiveInteger (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (seconds or a count), not ${raw}`)
  return value
}

// ---- CPU pinning ---------------------------------------------------------------------------------

interface Pinning { server: string[], load: string[], note: string }

function choosePinning (): Pinning {
  const cores = availableParallelism()
  const tasksetWorks = spawnSync('taskset', ['-c', '0', 'true']).status === 0
  if (cores >= 2 && tasksetWorks) {
    return { server: ['taskset', '-c', '0'], load: ['taskset', '-c', '1'], note: 'servers on CPU 0, autocannon on CPU 1' }
  }
  const why = tasksetWorks ? `only ${cores} CPU available` : 'taskset is not available (Debian: util-linux)'
  process.stdout.write(`NOTICE: not pinning processes to cores (${why}); the ratio also measures the load generator.\n`)
  return { server: [], load: [], note: `unpinned: ${why}` }
}

function command (prefix: string[], args: string[]): [string, string[]] {
  const all = [...prefix, process.execPath, ...args]
  return [all[0] as string, all.slice(1)]
}

// ---- servers -------------------------------------------------------------------------------------

interface Server { name: string, baseUrl: string, child: ChildProcess, stderr: () => string }

async function freePort (): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const address = probe.address()
  probe.close()
  await once(probe, 'close')
  if (typeof address !== 'object' || address === null) throw new Error('no free port found')
  return address.port
}

async function waitFor (baseUrl: string, path: string, status = 200, timeoutMs = 30_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    if (child?.exitCode != null) throw new Error(`the process exited with code ${child.exitCode}`)
    try {
      const response = await fetch(baseUrl + path, { signal: AbortSignal.timeout(2000) })
      await response.arrayBuffer()
      if (response.status === status) return
      last = `status ${response.status}`
    } catch (error) {
      last = (error as Error).message
    }
    await sleep(100)
  }
  throw new Error(`${baseUrl}${path} did not answer ${status} within ${timeoutMs} ms (${last})`)
}

// The V8 flags the service runs with (`npm start`, the Dockerfile's NODE_OPTIONS). Both servers get
// them, so the ratio compares the applications and not their heap settings.
const SERVER_NODE_FLAGS = SHIPPED_NODE_OPTIONS.split(/\s+/)

async function startServer (name: string, pinning: Pinning, args: string[], env: Record<string, string>): Promise<Server> {
  const [file, argv] = command(pinning.server, [...SERVER_NODE_FLAGS, ...args])
  // Logs go nowhere: a pipe back to this process would put its reader on the load generator's core.
  const child = spawn(file, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000) })
  const server = { name, baseUrl: `http://127.0.0.1:${env.PORT}`, child, stderr: () => stderr }
  try {
    await waitFor(server.baseUrl, '/ping', 200, 30_000, child)
  } catch (error) {
    await stopServer(server)
    throw new Error(`${name} did not start: ${(error as Error).message}\n${stderr}`)
  }
  return server
}

async function stopServer (server: Server): Promise<void> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/**
 * CPU seconds the server process has used (Linux /proc; undefined elsewhere). CPU time per request
 * is a second view of the cost that neighbours on a shared machine disturb far less than req/s.
 */
function cpuSeconds (server: Server): number | undefined {
  try {
    const stat = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of the line, in clock ticks (USER_HZ is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

// ---- load ----------------------------------------------------------------------------------------

interface BenchRequest { method: string, path: string, headers: Record<string, string>, body?: string, expectStatus: number }

async function load (pinning: Pinning, server: Server, request: BenchRequest, durationSeconds: number): Promise<LoadResult> {
  const options: LoadOptions = {
    url: server.baseUrl + request.path,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: durationSeconds
  }
  const [file, argv] = command(pinning.load, ['--import=tsx', join(root, 'bench/load.ts'), JSON.stringify(options)])
  const child = spawn(file, argv, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  const cpuBefore = cpuSeconds(server)
  const [code] = await once(child, 'exit') as [number | null]
  const cpuAfter = cpuSeconds(server)
  if (code !== 0) throw new Error(`autocannon against ${server.name} exited with code ${code}`)
  const result = JSON.parse(stdout) as LoadResult
  if (cpuBefore !== undefined && cpuAfter !== undefined && result.total > 0) {
    result.cpuMicrosPerRequest = (cpuAfter - cpuBefore) * 1e6 / result.total
  }
  return result
}

function unexpectedAnswers (result: LoadResult, expectStatus: number): number {
  let unexpected = result.errors + result.timeouts
  for (const [code, count] of Object.entries(result.statusCodes)) if (Number(code) !== expectStatus) unexpected += count
  return unexpected
}

// ---- figures -------------------------------------------------------------------------------------

interface Figures { requestsPerSecond: number, latencyP50: number, latencyP99: number, cpuMicrosPerRequest?: number }

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

function medians (rounds: LoadResult[]): Figures {
  const cpu = rounds.flatMap(r => r.cpuMicrosPerRequest ?? [])
  return {
    requestsPerSecond: median(rounds.map(r => r.requestsPerSecond)),
    latencyP50: median(rounds.map(r => r.latencyP50)),
    latencyP99: median(rounds.map(r => r.latencyP99)),
    cpuMicrosPerRequest: cpu.length === rounds.length ? median(cpu) : undefined
  }
}

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
  target?: number
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
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map(row => row[column]!.length)))
  const line = (row: string[]) => row.map((cell, column) => column >= 2 && column <= 5 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)).join('  ').trimEnd()
  process.stdout.write(`\n${line(rows[0]!)}\n${widths.map(w => '-'.repeat(w)).join('  ')}\n${rows.slice(1).map(line).join('\n')}\n`)
  const related = reports.filter(report => report.relative !== undefined)
  if (related.length === 0) return
  process.stdout.write('\nWithin one service process, req/s against the group\'s first scenario (median of the rounds):\n')
  for (const { name, relative } of related) {
    const { to, ratio, roundRatios } = relative!
    process.stdout.write(`  ${name} / ${to}: ${ratio.toFixed(2)} (rounds ${Math.min(...roundRatios).toFixed(2)}-${Math.max(...roundRatios).toFixed(2)})\n`)
  }
}

function fmt (value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
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
  const ofService = { ...medians(service.rounds), rounds: service.rounds }
  const ofBaseline = { ...medians(baseline.rounds), rounds: baseline.rounds }
  // The ratio is taken within each round, so a neighbour's burst that slows one round slows both sides.
  const roundRatios = service.rounds.map((result, round) => result.requestsPerSecond / baseline.rounds[round]!.requestsPerSecond)
  const unexpected = service.rounds.reduce((sum, result) => sum + unexpectedAnswers(result, service.expectStatus), 0) +
    baseline.rounds.reduce((sum, result) => sum + unexpectedAnswers(result, baseline.expectStatus), 0)
  const relativeRounds = reference === undefined || reference === measurement
    ? undefined
    : service.rounds.map((result, round) => result.requestsPerSecond / reference.service.rounds[round]!.requestsPerSecond)
  return {
    name: scenario.name,
    method: request.method,
    path: request.path,
    service: ofService,
    baseline: ofBaseline,
    ratio: median(roundRatios),
    roundRatios,
    cpuRatio: ofService.cpuMicrosPerRequest === undefined || ofBaseline.cpuMicrosPerRequest === undefined
      ? undefined
      : ofBaseline.cpuMicrosPerRequest / ofService.cpuMicrosPerRequest,
    relative: relativeRounds === undefined ? undefined : { to: reference!.scenario.name, ratio: median(relativeRounds), roundRatios: relativeRounds },
    target: scenario.target,
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
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        DATA_DIR: join(dataDir, `${first.group ?? first.name}-${processes.size}`),
        ...Object.fromEntries(Object.entries(scenario.env ?? {}).map(([name, value]) => [name, value.replaceAll(OTLP_SINK, otlpSink)]))
      }
      running = { service: await startServer('service', pinning, [...scenario.nodeArgs ?? [], 'dist/src/server.js'], env), env }
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
        expectStatus: scenario.expectStatus ?? 200
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
  const baselineEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(await freePort()) }
  const baseline = await startServer('baseline', pinning, ['--import=tsx', 'bench/baseline.ts'], baselineEnv)
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

  printTable(reports)
  const resultsDir = join(root, 'bench/results')
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: availableParallelism(),
    pinning: pinning.note,
    settings,
    scenarios: reports
  }, null, 2) + '\n')
  process.stdout.write('\nwritten to bench/results/latest.json\n')

  for (const report of reports) {
    if (report.target === undefined) continue
    const [ratio, of] = report.relative === undefined ? [report.ratio, 'the baseline'] : [report.relative.ratio, report.relative.to]
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
