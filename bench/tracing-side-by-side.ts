// `npm run bench:tracing` (PostgreSQL at BENCH_DATABASE_URL,
// default the local test database; BENCH_ROUNDS, default 5; BENCH_DURATION, default 6 s).
//
// What tracing costs `/ping` and a candidato read, measured with the two processes under load at
// the same time on the same core, each by its own load generator: the scheduler gives both the
// same CPU time, so the ratio of their req/s is the inverse ratio of their CPU cost per request,
// and whatever slows the core at that moment (a host throttling its CPUs, neighbours) slows both.
// `npm run bench` measures one process after the other, which such a machine disturbs by more than
// tracing costs. The pair "configured, no endpoint" runs the untraced code in a second process: its
// ratio, which should be 1, shows what the method itself is worth (docs/benchmarks.md, "Tracing").
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { choosePinning, freePort, median, positiveInteger, runLoad, startServer, stopServer, waitFor, type Server } from './harness.ts'
import type { LoadResult } from './load-result.ts'
import { startOtlpSink } from './otlp-sink.ts'
import { candidatoToRead, onPostgres, TRACING_PRELOAD, tracingConfigured } from './scenarios.ts'
import { SHIPPED_NODE_FLAGS, shippedEnvironment } from './shipped-process.ts'

const rounds = positiveInteger('BENCH_ROUNDS', 5)
const durationSeconds = positiveInteger('BENCH_DURATION', 6)
const pinning = choosePinning()
const sink = await startOtlpSink()

const exporting = { ...tracingConfigured, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }

interface Contender { name: string, target?: number, settings: Record<string, string>, traced: boolean }
const contenders: Contender[] = [
  { name: 'configured, no endpoint', target: 0.97, settings: tracingConfigured, traced: true },
  { name: '10% sampled', target: 0.85, settings: exporting, traced: true },
  { name: 'nothing sampled', settings: { ...exporting, OTEL_TRACES_SAMPLER_ARG: '0' }, traced: true }
]

async function start (settings: Record<string, string>, traced: boolean): Promise<Server> {
  const port = String(await freePort())
  const env = shippedEnvironment({ PORT: port, DATA_DIR: join(tmpdir(), `side-by-side-${port}`), ...settings })
  const server = await startServer('service', pinning, [...SHIPPED_NODE_FLAGS, ...(traced ? TRACING_PRELOAD : []), 'dist/src/server.js'], env)
  await waitFor(server.baseUrl, '/health/ready', 200, 60_000, server.child)
  return server
}

function answered (result: LoadResult): LoadResult {
  const failed = result.errors + result.timeouts + result.non2xx
  if (failed > 0) throw new Error(`${failed} requests failed: ${JSON.stringify(result.statusCodes)}`)
  return result
}

const untraced = await start(onPostgres, false)
const others = await Promise.all(contenders.map(async contender => await start(contender.settings, contender.traced)))
try {
  const { path: readPath, headers } = await candidatoToRead(untraced.baseUrl)
  const load = async (server: Server, path: string, seconds: number) =>
    answered(await runLoad(pinning, server, 'bench/load.ts', { url: server.baseUrl + path, method: 'GET', headers, connections: 100, pipelining: 10, duration: seconds }))

  process.stdout.write(`${pinning.note}; each pair loaded at once, 100 connections, pipelining 10 each, ${rounds} rounds of ${durationSeconds} s\n`)
  let missed = false
  for (const path of ['/ping', readPath]) {
    for (const server of [untraced, ...others]) await load(server, path, 3)
    const ratios = contenders.map(() => [] as number[])
    // Each process's CPU time ÷ wall time: near 0.5 each, the core was shared and both were saturated;
    // well under, the load generators (sharing the other core) were the limit, and the ratio says less.
    const shares = contenders.map(() => [] as number[])
    for (let round = 0; round < rounds; round++) {
      for (const [i, other] of others.entries()) {
        const [reference, measured] = await Promise.all([load(untraced, path, durationSeconds), load(other, path, durationSeconds)])
        ratios[i]!.push(measured.requestsPerSecond / reference.requestsPerSecond)
        shares[i]!.push((reference.serverCpuShare ?? 0) + (measured.serverCpuShare ?? 0))
      }
    }
    process.stdout.write(`\nGET ${path.startsWith('/ping') ? '/ping' : '/api/v1/candidatos/{id}'}: req/s against the untraced process beside it\n`)
    for (const [i, contender] of contenders.entries()) {
      const ofRounds = ratios[i]!
      const ratio = median(ofRounds)
      const met = contender.target === undefined || ratio >= contender.target
      if (!met) missed = true
      const verdict = contender.target === undefined ? '' : `  ${met ? 'meets' : 'MISSES'} ${contender.target}`
      const core = median(shares[i]!)
      process.stdout.write(`  ${contender.name.padEnd(24)} ${ratio.toFixed(3)} (rounds ${Math.min(...ofRounds).toFixed(2)}-${Math.max(...ofRounds).toFixed(2)}), the pair used ${core.toFixed(2)} of the core${verdict}\n`)
    }
  }
  if (missed) process.exitCode = 1
} finally {
  for (const server of [untraced, ...others]) await stopServer(server)
  await sink.close()
}
