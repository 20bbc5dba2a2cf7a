// `node --import=tsx bench/async-resources.ts` (after `npm run build`; PostgreSQL at BENCH_DATABASE_URL,
// default the local test database): how many async resources (promises, nextTicks, timers) one
// candidato read makes in the service, untraced and with tracing at 0% and 100% sampling. Under
// Node 20's AsyncLocalStorage, which tracing enables, each costs an async_hooks call. Unlike req/s,
// the count does not depend on how busy or throttled the machine is (docs/benchmarks.md, "Tracing").
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, getInTurn, startServer, stopServer, waitFor } from './harness.js'
import { startOtlpSink } from './otlp-sink.js'
import { candidatoToRead, onPostgres, TRACING_PRELOAD, tracingConfigured } from './scenarios.js'
import { shippedEnvironment } from './shipped-process.js'

const READS = 2_000
const WARM_UP_READS = 200
const NO_PINNING = { server: [], load: [], note: '' }
const COUNTS_LINE = 'async-resources '

type Counts = Record<string, number>

async function countPerRead (label: string, settings: Record<string, string>, traced: boolean): Promise<void> {
  const port = String(await freePort())
  const preload = ['--import', './bench/count-async-resources.mjs', ...(traced ? TRACING_PRELOAD : [])]
  const server = await startServer(label, NO_PINNING, [...preload, 'dist/src/server.js'], shippedEnvironment({ PORT: port, DATA_DIR: join(tmpdir(), `async-resources-${port}`), ...onPostgres, ...settings }))
  // The preload writes the running totals on SIGWINCH: the next counts line answers it.
  const answers: Array<(line: string) => void> = []
  server.child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.startsWith(COUNTS_LINE)) answers.shift()?.(line)
  })
  const snapshot = async (): Promise<Counts> => {
    const line = new Promise<string>((resolve, reject) => {
      answers.push(resolve)
      server.child.once('exit', () => { reject(new Error(`${label}: the service exited\n${server.stderr()}`)) })
    })
    server.child.kill('SIGWINCH')
    return JSON.parse((await line).slice(COUNTS_LINE.length)) as Counts
  }
  try {
    const { baseUrl } = server
    await waitFor(baseUrl, '/health/ready', 200, 60_000, server.child)
    const { path, headers } = await candidatoToRead(baseUrl)
    await getInTurn(baseUrl + path, headers, WARM_UP_READS)
    const before = await snapshot()
    await getInTurn(baseUrl + path, headers, READS)
    const after = await snapshot()
    const perRead = Object.entries(after)
      .map(([type, count]) => [type, (count - (before[type] ?? 0)) / READS] as const)
      .filter(([, count]) => count >= 0.05)
    const total = perRead.reduce((sum, [, count]) => sum + count, 0)
    process.stdout.write(`${label.padEnd(22)} ${total.toFixed(1).padStart(5)}  ${perRead.map(([type, count]) => `${type} ${count.toFixed(1)}`).join(', ')}\n`)
  } finally {
    await stopServer(server)
  }
}

const sink = await startOtlpSink()
const tracing = { ...tracingConfigured, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }
process.stdout.write(`async resources per candidato read (${READS} reads, one at a time, after ${WARM_UP_READS}):\n`)
try {
  await countPerRead('untraced', {}, false)
  await countPerRead('tracing, 0% sampled', { ...tracing, OTEL_TRACES_SAMPLER_ARG: '0' }, true)
  await countPerRead('tracing, 100% sampled', { ...tracing, OTEL_TRACES_SAMPLER_ARG: '1' }, true)
} finally {
  await sink.close()
}
