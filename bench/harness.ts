// What the benchmarks share: CPU pinning, starting and stopping servers, the CPU time a server used,
// a fresh PostgreSQL database, and the medians of interleaved rounds.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { once } from 'node:events'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import type { LoadResult } from './load-result.ts'

export const root = resolve(import.meta.dirname, '..')

export function positiveInteger (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (seconds or a count), not ${raw}`)
  return value
}

// ---- CPU pinning ---------------------------------------------------------------------------------

export interface Pinning { server: string[], load: string[], note: string }

export function choosePinning (): Pinning {
  const cores = availableParallelism()
  const tasksetWorks = spawnSync('taskset', ['-c', '0', 'true']).status === 0
  if (cores >= 2 && tasksetWorks) {
    return { server: ['taskset', '-c', '0'], load: ['taskset', '-c', '1'], note: 'servers on CPU 0, autocannon on CPU 1' }
  }
  const why = tasksetWorks ? `only ${cores} CPU available` : 'taskset is not available (Debian: util-linux)'
  process.stdout.write(`NOTICE: not pinning processes to cores (${why}); the ratio also measures the load generator.\n`)
  return { server: [], load: [], note: `unpinned: ${why}` }
}

export function command (prefix: string[], args: string[]): [string, string[]] {
  const all = [...prefix, process.execPath, ...args]
  return [all[0] as string, all.slice(1)]
}

// ---- servers -------------------------------------------------------------------------------------

export interface Server { name: string, baseUrl: string, child: ChildProcess, stderr: () => string }

/** A loopback port free a moment ago, for a server to listen on. */
export { closedPort as freePort } from '../test/support/closed-port.ts'

export async function waitFor (baseUrl: string, path: string, status = 200, timeoutMs = 30_000, child?: ChildProcess): Promise<void> {
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

/** BENCH_CPU_PROFILE=<dir>: the service writes a V8 CPU profile there when it stops (see bench/cpu-profile-summary.ts). */
export function profilingFlags (): string[] {
  const dir = process.env.BENCH_CPU_PROFILE
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`]
}

/** Starts a server process on the server's core; `args` are node's, V8 flags included. */
export async function startServer (name: string, pinning: Pinning, args: string[], env: Record<string, string>): Promise<Server> {
  const [file, argv] = command(pinning.server, args)
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

export async function stopServer (server: Server): Promise<void> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** A process's CPU seconds from its /proc stat line: utime and stime, fields 14 and 15, in clock ticks (USER_HZ is 100 on Linux). */
function cpuSecondsOfStat (stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * CPU seconds the server process has used (Linux /proc; undefined elsewhere). CPU time per request
 * is a second view of the cost that neighbours on a shared machine disturb far less than req/s.
 */
export function cpuSeconds (server: Server): number | undefined {
  try {
    return cpuSecondsOfStat(readFileSync(`/proc/${server.child.pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

/** CPU seconds of each of this machine's PostgreSQL processes (the server and its backends), by pid. */
function databaseCpuSeconds (): Map<string, number> {
  const seconds = new Map<string, number>()
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.includes(' (postgres) ')) seconds.set(pid, cpuSecondsOfStat(stat))
    } catch {
      // The process ended meanwhile.
    }
  }
  return seconds
}

/**
 * The CPU seconds PostgreSQL spent between two readings; undefined when it does not run here. The
 * database shares the machine with the servers, so its work per request counts too: batching saves
 * it there. A process that ended meanwhile takes its share with it (autovacuum workers, mostly).
 */
function databaseCpuBetween (before: Map<string, number>, after: Map<string, number>): number | undefined {
  if (after.size === 0) return undefined
  let seconds = 0
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0)
  return seconds
}

/**
 * Waits until the servers stop using CPU: a server keeps answering the requests a load run left
 * queued after the run ends, and that tail must not fall into the next run (nor a restore of data).
 */
export async function untilQuiet (servers: Server[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const used = () => servers.reduce((sum, server) => sum + (cpuSeconds(server) ?? 0), 0)
  let before = used()
  while (Date.now() < deadline) {
    await sleep(250)
    const now = used()
    if (now - before < 0.02) return
    before = now
  }
  throw new Error(`the servers were still busy ${timeoutMs} ms after the load ended`)
}

// ---- load ----------------------------------------------------------------------------------------

/** Runs a script of bench/ on the load generator's core with `options` as JSON, and reads the JSON it prints. */
export async function runScript<T> (pinning: Pinning, script: string, options: unknown): Promise<T> {
  const [file, argv] = command(pinning.load, [resolve(root, script), JSON.stringify(options)])
  const child = spawn(file, argv, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${script} exited with code ${code}`)
  return JSON.parse(stdout) as T
}

/**
 * Runs a load script (one autocannon run that prints its LoadResult as JSON) on the load generator's
 * core, and adds the CPU time the server, and this machine's PostgreSQL, spent per request meanwhile.
 */
export async function runLoad (pinning: Pinning, server: Server, script: string, options: unknown): Promise<LoadResult> {
  const cpuBefore = cpuSeconds(server)
  const databaseBefore = databaseCpuSeconds()
  const started = Date.now()
  const result = await runScript<LoadResult>(pinning, script, options)
  const cpuAfter = cpuSeconds(server)
  const databaseAfter = databaseCpuSeconds()
  const wallSeconds = (Date.now() - started) / 1000
  if (cpuBefore !== undefined && cpuAfter !== undefined && result.total > 0) {
    result.cpuMicrosPerRequest = (cpuAfter - cpuBefore) * 1e6 / result.total
    result.serverCpuShare = (cpuAfter - cpuBefore) / wallSeconds
  }
  const databaseUsed = databaseCpuBetween(databaseBefore, databaseAfter)
  if (databaseUsed !== undefined && result.total > 0) result.databaseCpuMicrosPerRequest = databaseUsed * 1e6 / result.total
  return result
}

// ---- figures -------------------------------------------------------------------------------------

export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

export interface Figures { requestsPerSecond: number, latencyP50: number, latencyP99: number, cpuMicrosPerRequest?: number, serverCpuShare?: number, databaseCpuMicrosPerRequest?: number }

export function medians (rounds: LoadResult[]): Figures {
  const cpu = rounds.flatMap(r => r.cpuMicrosPerRequest ?? [])
  const database = rounds.flatMap(r => r.databaseCpuMicrosPerRequest ?? [])
  return {
    requestsPerSecond: median(rounds.map(r => r.requestsPerSecond)),
    latencyP50: median(rounds.map(r => r.latencyP50)),
    latencyP99: median(rounds.map(r => r.latencyP99)),
    cpuMicrosPerRequest: cpu.length === rounds.length ? median(cpu) : undefined,
    serverCpuShare: cpu.length === rounds.length ? median(rounds.map(r => r.serverCpuShare ?? 0)) : undefined,
    databaseCpuMicrosPerRequest: database.length === rounds.length ? median(database) : undefined
  }
}

export interface Comparison {
  service: Figures
  baseline: Figures
  /** Median over the rounds of service req/s ÷ baseline req/s measured side by side in that round. */
  ratio: number
  roundRatios: number[]
  /** Baseline CPU time per request ÷ the service's: the same ratio seen through CPU cost. */
  cpuRatio?: number
}

/**
 * The service's rounds against the baseline's. The ratio is taken within each round, so a
 * neighbour's burst that slows one round slows both sides.
 */
export function compare (service: LoadResult[], baseline: LoadResult[]): Comparison {
  const ofService = medians(service)
  const ofBaseline = medians(baseline)
  const roundRatios = service.map((result, round) => result.requestsPerSecond / baseline[round]!.requestsPerSecond)
  return {
    service: ofService,
    baseline: ofBaseline,
    ratio: median(roundRatios),
    roundRatios,
    cpuRatio: ofService.cpuMicrosPerRequest === undefined || ofBaseline.cpuMicrosPerRequest === undefined
      ? undefined
      : ofBaseline.cpuMicrosPerRequest / ofService.cpuMicrosPerRequest
  }
}

/** Prints rows as a table under the first row; columns 2 to 5 hold figures and are right-aligned. */
export function printRows (rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map(row => row[column]!.length)))
  const line = (row: string[]) => row.map((cell, column) => column >= 2 && column <= 5 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)).join('  ').trimEnd()
  process.stdout.write(`\n${line(rows[0]!)}\n${widths.map(w => '-'.repeat(w)).join('  ')}\n${rows.slice(1).map(line).join('\n')}\n`)
}

/** Writes bench/results/<file> (not committed): the figures with the conditions they were measured in. */
export function writeResults (file: string, pinning: Pinning, figures: Record<string, unknown>): void {
  const resultsDir = join(root, 'bench/results')
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(join(resultsDir, file), JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: availableParallelism(),
    pinning: pinning.note,
    ...figures
  }, null, 2) + '\n')
  process.stdout.write(`\nwritten to bench/results/${file}\n`)
}

export function fmt (value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/**
 * A new database on the PostgreSQL server at `serverUrl`, and a way to drop it: empty, or a copy of
 * the database `template` (which nothing may be connected to meanwhile).
 */
export async function freshDatabase (serverUrl: string, prefix: string, template?: string): Promise<{ url: string, drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    }
  }
}
