import t from 'tap'
import { get } from 'node:http'
import { connect, type Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { startServerProcess, untilReady } from '../support/server-process.ts'

const CONNECTIONS = 16
const REQUESTS_PER_CONNECTION = 1400
const BASELINE_MS = 3_000
const FLOOD_MS = 8_000
const PROBE_INTERVAL_MS = 40
const MAX_RSS_GROWTH_MB = 150
// A flood that starved the event loop would hold every probe for seconds: the p99 must stay under
// half the time the deployment gives a liveness probe (Kubernetes `timeoutSeconds: 2`, HAProxy
// `timeout check 2s`), and no probe may take that whole time. On a slow 2-core test machine running
// other suites beside this one, a single probe took 1.1 s while the p99 was 153 ms.
const PROBE_P99_MS = 1_000
const PROBE_TIMEOUT_MS = 2_000

function rssMb (pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) / 1024
}

/** A connection that writes its pipelined requests in one write and never reads an answer. */
async function flood (port: number, request: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  socket.pause()
  socket.write(request.repeat(REQUESTS_PER_CONNECTION))
  return socket
}

/** One GET and the time it took to be answered. */
async function probe (url: string): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    await response.arrayBuffer()
    return { status: response.status, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}

interface Probing { probes: Array<{ status: number, ms: number }>, peakGrowthMb: number }

/** Probes /health/live for `durationMs`, following the server's RSS growth; stops early past `stopAtGrowthMb`. */
async function probeFor (url: string, pid: number, baselineMb: number, durationMs: number, stopAtGrowthMb: number): Promise<Probing> {
  const probes: Probing['probes'] = []
  let peakGrowthMb = 0
  const until = Date.now() + durationMs
  while (Date.now() < until && peakGrowthMb <= stopAtGrowthMb) {
    probes.push(await probe(`${url}/health/live`))
    peakGrowthMb = Math.max(peakGrowthMb, rssMb(pid) - baselineMb)
    await sleep(PROBE_INTERVAL_MS) // pacing of the probe: it samples latency and RSS through the flood
  }
  return { probes, peakGrowthMb }
}

/**
 * The status of a GET on a connection of its own. A socket kept alive from before the flood may be
 * closed by the server at the moment it is reused, which says nothing about the server.
 */
async function statusOnNewConnection (url: string): Promise<number> {
  return await new Promise((resolve, reject) => {
    get(url, { agent: false }, res => { res.resume(); resolve(res.statusCode ?? 0) }).on('error', reject)
  })
}

function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!
}

t.test('16 connections flooding pipelined docs requests and never reading: memory stays bounded and /health/live answers', async t => {
  // Rate limiting off: the bound must come from the connection limits alone.
  const server = await startServerProcess(t, { RATE_LIMIT_MAX: '0' })
  await untilReady(server.url)
  const pid = server.child.pid!
  const port = Number(new URL(server.url).port)
  t.equal((await fetch(`${server.url}/docs/v1/openapi.json`)).status, 200, 'the document is served')
  const baseline = rssMb(pid)
  const quiet = percentile((await probeFor(server.url, pid, baseline, BASELINE_MS, Infinity)).probes.map(p => p.ms), 0.99)

  const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => flood(port, 'GET /docs/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n')))
  // Today's failure takes gigabytes within seconds: the flood stops before it harms the machine.
  const { probes, peakGrowthMb } = await probeFor(server.url, pid, baseline, FLOOD_MS, MAX_RSS_GROWTH_MB * 2)
  for (const socket of sockets) socket.destroy()

  const p99 = percentile(probes.map(p => p.ms), 0.99)
  const slowest = Math.max(...probes.map(p => p.ms))
  t.comment(`RSS ${baseline.toFixed(0)} MB, peak growth ${peakGrowthMb.toFixed(0)} MB; /health/live p99 ${p99.toFixed(1)} ms (${quiet.toFixed(1)} ms without the flood), max ${slowest.toFixed(1)} ms over ${probes.length} probes`)
  t.ok(peakGrowthMb < MAX_RSS_GROWTH_MB, `RSS grew ${peakGrowthMb.toFixed(0)} MB (bound ${MAX_RSS_GROWTH_MB} MB)`)
  t.same(probes.filter(p => p.status !== 200), [], 'every /health/live probe answered 200')
  t.ok(p99 < PROBE_P99_MS, `/health/live p99 ${p99.toFixed(1)} ms, under ${PROBE_P99_MS} ms`)
  t.ok(slowest < PROBE_TIMEOUT_MS, `every /health/live probe answered within the deployment's ${PROBE_TIMEOUT_MS} ms (the slowest took ${slowest.toFixed(1)} ms)`)

  // Afterwards: the process is alive and serves every kind of route.
  t.equal(server.child.exitCode, null, 'the process still runs')
  t.equal(await statusOnNewConnection(`${server.url}/ping`), 200)
  t.equal(await statusOnNewConnection(`${server.url}/health/ready`), 200)
  t.equal(await statusOnNewConnection(`${server.url}/docs/v1/openapi.json`), 200)
})
