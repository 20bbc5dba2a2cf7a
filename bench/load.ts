// One autocannon run, in its own process so it can be pinned to its own core. Reads the options
// as JSON from argv[2] and prints one JSON line with the figures bench/run.ts needs.
import autocannon from 'autocannon'

export interface LoadOptions {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  connections: number
  pipelining: number
  duration: number
}

export interface LoadResult {
  requestsPerSecond: number
  latencyP50: number
  latencyP99: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  /** Filled in by bench/run.ts: the server's CPU time over the run divided by the requests answered. */
  cpuMicrosPerRequest?: number
}

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions

const result = await autocannon({
  url: options.url,
  method: options.method as autocannon.Request['method'],
  headers: options.headers,
  body: options.body,
  connections: options.connections,
  pipelining: options.pipelining,
  duration: options.duration
})

const statusCodes: Record<string, number> = {}
for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count.count ?? 0

const summary: LoadResult = {
  requestsPerSecond: result.requests.average,
  latencyP50: result.latency.p50,
  latencyP99: result.latency.p99,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes
}
process.stdout.write(`${JSON.stringify(summary)}\n`)
