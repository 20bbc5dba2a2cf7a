// `npm run bench:instructions` (valgrind; PostgreSQL at BENCH_DATABASE_URL, default the local test
// database; BENCH_READS, default 2000; BENCH_WARM_UP_READS, default 5000; BENCH_KEEP=1 keeps the
// callgrind files, for callgrind_annotate, and prints where): the machine instructions one candidato read costs the
// service, untraced and with tracing sampling nothing and everything, counted by valgrind's callgrind. Unlike req/s or CPU time, a count does not depend on how
// busy or throttled the machine is: runs agree within about 1%, except with everything sampled, whose
// export work depends on how many spans each batch carries, which the clock decides
// (docs/benchmarks.md, "Tracing").
// A count is work, not time: code that takes many cheap instructions (V8's megamorphic property
// lookups) weighs more here than in req/s, so read it beside `npm run bench:tracing`.
//
// Reads go one at a time, so each makes its own query (how many concurrent reads share one depends on
// timing), after a warm-up, with counting on only around the measured reads. The service runs with
// --single-threaded: V8's compilers and garbage collector then work on the main thread, at the same
// points in every run, which makes the count repeatable (a deployed service runs them beside it).
// Compilation (the optimizing compilers, the parser, the bytecode generator) comes and goes with
// deoptimizations and is reported apart.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, getInTurn, positiveInteger, startServer, stopServer, waitFor } from './harness.js'
import { startOtlpSink } from './otlp-sink.js'
import { candidatoToRead, onPostgres, TRACING_PRELOAD, tracingConfigured } from './scenarios.js'
import { SHIPPED_NODE_FLAGS, shippedEnvironment } from './shipped-process.js'

const READS = positiveInteger('BENCH_READS', 2_000)
const WARM_UP_READS = positiveInteger('BENCH_WARM_UP_READS', 5_000)
// Self cost of these functions is compilation: V8's optimizing compilers (Turbofan, Maglev),
// Sparkplug, the parser and the bytecode generator.
const COMPILING = /v8::internal::(compiler|maglev|baseline)::|v8::internal::(Parser|Scanner|Compiler|BytecodeGenerator)\b|v8::internal::Zone/

if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is needed (Debian: valgrind)')

/** Per read: instructions outside compilation, and compilation's apart. */
interface Count { running: number, compiling: number }

async function countPerRead (label: string, settings: Record<string, string>, preload: string[], out: string): Promise<Count> {
  const port = String(await freePort())
  const valgrind = { server: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`], load: [], note: '' }
  const env = shippedEnvironment({ PORT: port, DATA_DIR: join(tmpdir(), `instructions-${port}`), ...settings })
  const server = await startServer(label, valgrind, [...SHIPPED_NODE_FLAGS, '--single-threaded', ...preload, 'dist/src/server.js'], env)
  try {
    await waitFor(server.baseUrl, '/health/ready', 200, 120_000, server.child)
    const { path, headers } = await candidatoToRead(server.baseUrl)
    await getInTurn(server.baseUrl + path, headers, WARM_UP_READS)
    // callgrind_control reaches the process through files named after the USER and HOST variables of
    // its environment (here HOST is the listen address): it must run with the same.
    const control = (switchTo: 'on' | 'off') => execFileSync('callgrind_control', ['--instr=' + switchTo, String(server.child.pid)], { env, stdio: 'ignore', timeout: 60_000 })
    control('on')
    await getInTurn(server.baseUrl + path, headers, READS)
    control('off')
  } finally {
    await stopServer(server)
  }
  const total = Number(/^totals: (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1] ?? 0)
  if (total === 0) throw new Error(`${label}: callgrind counted nothing (BENCH_KEEP=1 keeps ${out})`)
  let compiling = 0
  let functions = 0
  for (const line of execFileSync('callgrind_annotate', ['--threshold=100', out], { maxBuffer: 1 << 28 }).toString().split('\n')) {
    const match = /^\s*([\d,]+) \(.*?\)\s+(.*)$/.exec(line)
    if (match === null) continue
    functions++
    if (COMPILING.test(match[2]!)) compiling += Number(match[1]!.replaceAll(',', ''))
  }
  if (functions < 2) throw new Error(`${label}: callgrind_annotate printed no functions for ${out}`)
  return { running: (total - compiling) / READS, compiling: compiling / READS }
}

const dir = mkdtempSync(join(tmpdir(), 'instructions-'))
const sink = await startOtlpSink()
const exporting = { ...tracingConfigured, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }
const contenders = [
  { label: 'untraced', settings: onPostgres, preload: [] },
  { label: 'tracing, nothing sampled', settings: { ...exporting, OTEL_TRACES_SAMPLER_ARG: '0' }, preload: TRACING_PRELOAD },
  { label: 'tracing, all sampled', settings: { ...exporting, OTEL_TRACES_SAMPLER_ARG: '1' }, preload: TRACING_PRELOAD }
]
try {
  process.stdout.write(`instructions per candidato read on Node ${process.versions.node} (${READS} reads one at a time, after ${WARM_UP_READS}), thousands:\n`)
  const counts: Count[] = []
  for (const [i, { label, settings, preload }] of contenders.entries()) {
    const count = await countPerRead(label, settings, preload, join(dir, `${i}.callgrind`))
    counts.push(count)
    process.stdout.write(`  ${label.padEnd(26)} ${(count.running / 1000).toFixed(0).padStart(5)}  ${(counts[0]!.running / count.running).toFixed(3)} of untraced   (compiling besides: ${(count.compiling / 1000).toFixed(0)})\n`)
  }
  // At a ratio r, a read costs what nothing sampled costs plus r of what sampling adds.
  const [untraced, nothing, all] = counts.map(count => count.running) as [number, number, number]
  const tenPercent = nothing + 0.1 * (all - nothing)
  process.stdout.write(`  ${'tracing, 10% sampled'.padEnd(26)} ${(tenPercent / 1000).toFixed(0).padStart(5)}  ${(untraced / tenPercent).toFixed(3)} of untraced   (from the two above)\n`)
} finally {
  await sink.close()
  if (process.env.BENCH_KEEP === '1') process.stdout.write(`callgrind files kept in ${dir}\n`)
  else rmSync(dir, { recursive: true, force: true })
}
