// What `npm run bench:workload` and `npm run bench:mechanisms` share: the settings, the seeded
// database and its data, the servers started on it, and the interleaved rounds of one operation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.ts'
import { freePort, freshDatabase, medians, positiveInteger, runLoad, startServer, stopServer, untilQuiet, waitFor, type Pinning, type Server } from './harness.ts'
import type { LoadResult } from './load-result.ts'
import { appScript, SHIPPED_NODE_FLAGS } from './shipped-process.ts'
import { restoreWorkload, seedWorkload, untilDatabaseIdle } from './workload-data.ts'
import type { WorkloadLoadOptions } from './workload-load.ts'
import type { OperationName, WorkloadData } from './workload-operations.ts'

export const settings = {
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
/**
 * Requests per second no server reaches with `candidatar` here (the service: about 4,000 to 6,000),
 * so a run never runs out of `cadastrado` candidatos: past the pool's end the ids come round again
 * and answer 409, which the run counts as unexpected.
 */
const CANDIDATAR_RATE_BOUND = 15_000

export interface Side { server: Server, rounds: LoadResult[], atHalfCapacity: LoadResult[] }

/** The names of `all` that BENCH_OPERATIONS names (all of them when unset): operations, and sections such as `webhooks`. */
export function selectedOperations<N extends string> (all: readonly N[]): N[] {
  const only = process.env.BENCH_OPERATIONS?.split(',').map(name => name.trim()).filter(name => name !== '')
  if (only === undefined) return [...all]
  const unknown = only.filter(name => !all.includes(name as N))
  if (unknown.length > 0) throw new Error(`no operation named ${unknown.join(', ')}; known: ${all.join(', ')}`)
  return only as N[]
}

/** The rounds, each starting with another side: drift over the run (heat, neighbours) weighs on all alike. */
export async function interleaved<S> (sides: S[], label: string, run: (side: S) => Promise<void>): Promise<void> {
  for (let round = 0; round < settings.rounds; round++) {
    for (let i = 0; i < sides.length; i++) await run(sides[(round + i) % sides.length]!)
    process.stdout.write(` ${label} ${round + 1}/${settings.rounds}`)
  }
}

/**
 * A seeded database and the servers started on it. `serviceEnv` is what the service needs to run on
 * it: no rate limit (one client makes the load), no shedding (saturation is the point), and queries
 * wait for a pooled connection as long as it takes.
 */
export class WorkloadBench {
  private runs = 0
  readonly servers: Server[] = []
  private readonly copies: Array<() => Promise<void>> = []

  readonly pinning: Pinning
  readonly databaseUrl: string
  readonly data: WorkloadData
  private readonly dataFile: string
  readonly authorization: string
  readonly scratch: string
  private readonly drop: () => Promise<void>

  private constructor (
    pinning: Pinning,
    databaseUrl: string,
    data: WorkloadData,
    dataFile: string,
    authorization: string,
    scratch: string,
    drop: () => Promise<void>
  ) {
    this.pinning = pinning
    this.databaseUrl = databaseUrl
    this.data = data
    this.dataFile = dataFile
    this.authorization = authorization
    this.scratch = scratch
    this.drop = drop
  }

  static async seeded (pinning: Pinning, prefix: string): Promise<WorkloadBench> {
    const database = await freshDatabase(serverUrl, prefix)
    const scratch = mkdtempSync(join(tmpdir(), `${prefix}-`))
    process.stdout.write('seeding ...\n')
    const data = await seedWorkload(database.url, {
      vagas: settings.vagas, candidatos: settings.candidatos, readSample: 20_000, cadastrados: settings.durationSeconds * CANDIDATAR_RATE_BOUND
    })
    const dataFile = join(scratch, 'data.json')
    writeFileSync(dataFile, JSON.stringify(data))
    const authorization = `Bearer ${await mintToken({ sub: 'bench', scope: 'vagas:read candidatos:read candidatos:write', ttl: 24 * 3600 })}`
    return new WorkloadBench(pinning, database.url, data, dataFile, authorization, scratch, database.drop)
  }

  /** A copy of the seeded database, dropped with it; made before anything connects to the original. */
  async copyDatabase (prefix: string): Promise<string> {
    const copy = await freshDatabase(serverUrl, prefix, new URL(this.databaseUrl).pathname.slice(1))
    this.copies.push(copy.drop)
    return copy.url
  }

  get serviceEnv (): Record<string, string> {
    return {
      DATABASE_URL: this.databaseUrl,
      DATABASE_POOL_SIZE: String(settings.poolSize),
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_MAX: '0',
      SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      DATABASE_POOL_TIMEOUT_MS: '600000',
      NODE_ENV: 'production'
    }
  }

  /**
   * The built service (or `entry`, a copy of it), as the image runs it unless `nodeFlags` says
   * otherwise, on the servers' core, or on the load generator's with `onLoadCore` (a delivery worker
   * beside an API process).
   */
  async startService (name: string, options: { entry?: string, nodeFlags?: readonly string[], env?: Record<string, string>, onLoadCore?: boolean } = {}): Promise<Server> {
    const args = [...options.nodeFlags ?? SHIPPED_NODE_FLAGS, options.entry ?? 'dist/src/server.js']
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1', ...this.serviceEnv, LOG_LEVEL: 'info', DATA_DIR: join(this.scratch, 'data') }
    const pinning = options.onLoadCore === true ? { ...this.pinning, server: this.pinning.load } : this.pinning
    const service = await startServer(name, pinning, args, { ...env, PORT: String(await freePort()), ...options.env })
    this.servers.push(service)
    await waitFor(service.baseUrl, '/health/ready', 200, 60_000, service.child)
    return service
  }

  /** A server of bench/ on the same database, started with `args`. */
  async startBaseline (name: string, args: string[]): Promise<Server> {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1', NODE_ENV: 'production', DATABASE_URL: this.databaseUrl, DATABASE_POOL_SIZE: String(settings.poolSize) }
    const server = await startServer(name, this.pinning, args, { ...env, PORT: String(await freePort()) })
    this.servers.push(server)
    return server
  }

  /** The yardstick: the app that answers the service's JSON (bench/same-json-app.ts), compiled, on node's defaults. */
  async startSameJsonApp (): Promise<Server> {
    return await this.startBaseline('same-JSON app', [appScript('same-json-app')])
  }

  /** The app that answers bare rows (bench/plain-app.ts), compiled, on node's defaults. */
  async startPlainApp (): Promise<Server> {
    return await this.startBaseline('plain app', [appScript('plain-app')])
  }

  /** One load run; `databaseUrl` names the server's database when it is not the seeded one (a copy). */
  async load (operation: OperationName, server: Server, durationSeconds: number, offeredRate?: number, databaseUrl = this.databaseUrl): Promise<LoadResult> {
    await untilQuiet(this.servers)
    await untilDatabaseIdle(databaseUrl)
    if (WRITES.has(operation)) await restoreWorkload(databaseUrl, this.data)
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

  /** Warm-up of each server, then interleaved rounds; with `atHalfCapacity`, rounds at half of each one's rate too. */
  async measure<K extends string> (operation: OperationName, servers: Record<K, Server>, atHalfCapacity = false): Promise<Record<K, Side>> {
    process.stdout.write(`${operation}: warm-up ${settings.warmupSeconds} s each,`)
    for (const server of Object.values<Server>(servers)) await this.load(operation, server, settings.warmupSeconds)
    const of = Object.fromEntries(Object.entries<Server>(servers).map(([key, server]): [string, Side] => [key, { server, rounds: [], atHalfCapacity: [] }])) as Record<K, Side>
    const all = Object.values<Side>(of)
    await interleaved(all, 'round', async side => {
      side.rounds.push(await this.load(operation, side.server, settings.durationSeconds))
    })
    if (atHalfCapacity) {
      await interleaved(all, 'half capacity', async side => {
        const rate = Math.max(1, Math.round(medians(side.rounds).requestsPerSecond / 2))
        side.atHalfCapacity.push(await this.load(operation, side.server, settings.durationSeconds, rate))
      })
    }
    process.stdout.write('\n')
    return of
  }

  async stop (server: Server): Promise<void> {
    this.servers.splice(this.servers.indexOf(server), 1)
    await stopServer(server)
  }

  async close (): Promise<void> {
    for (const server of this.servers) await stopServer(server)
    for (const drop of this.copies) await drop()
    await this.drop()
    rmSync(this.scratch, { recursive: true, force: true })
  }
}

/** Answers other than 2xx, errors and timeouts. */
export function unexpected (results: LoadResult[]): number {
  return results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0)
}
