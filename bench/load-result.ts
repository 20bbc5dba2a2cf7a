// The figures of one autocannon run, as the benchmark scripts read them from a load process.
import type autocannon from 'autocannon'

export interface LoadResult {
  requestsPerSecond: number
  latencyP50: number
  latencyP99: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  /** Filled in by the orchestrator: the server's CPU time over the run divided by the requests answered. */
  cpuMicrosPerRequest?: number
  /** Filled in by the orchestrator: the server's CPU time over the run ÷ the run's wall time (1 = one core busy). */
  serverCpuShare?: number
  /** Filled in by the orchestrator: the CPU time of this machine's PostgreSQL over the run divided by the requests answered. */
  databaseCpuMicrosPerRequest?: number
}

export function summarize (result: autocannon.Result): LoadResult {
  const statusCodes: Record<string, number> = {}
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count.count ?? 0
  return {
    requestsPerSecond: result.requests.average,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes
  }
}
