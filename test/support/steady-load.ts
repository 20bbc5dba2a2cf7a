import { performance } from 'node:perf_hooks'

export interface LoadRequest {
  url: string
  headers: Record<string, string>
  /** The status every answer must have. */
  status: number
}

export interface LoadReport {
  count: number
  /** Milliseconds per request, in the order sent. */
  latencies: number[]
  /** One line per answer with another status than expected (or no answer). */
  failures: string[]
}

export interface SteadyLoad {
  /** Requests answered so far. */
  count: () => number
  /** The unexpected answers so far. */
  failures: () => readonly string[]
  /** Stops sending, waits for the requests in flight, and reports. */
  stop: () => Promise<LoadReport>
}

/** The given percentile (0 to 100) of a list of numbers. */
export function percentile (values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(sorted.length * p / 100) - 1)] ?? 0
}

/**
 * A bounded load of real HTTP requests on loopback: `workers` clients each send the requests in turn,
 * one at a time, until stopped, `maxDurationMs` has passed or `maxRequests` were sent.
 */
export function steadyLoad (requests: readonly LoadRequest[], options: { workers?: number, maxDurationMs?: number, maxRequests?: number } = {}): SteadyLoad {
  const { workers = 4, maxDurationMs = 60_000, maxRequests = 50_000 } = options
  const deadline = Date.now() + maxDurationMs
  const latencies: number[] = []
  const failures: string[] = []
  let sent = 0
  const state = { stopped: false }

  async function worker (offset: number): Promise<void> {
    for (let i = offset; !state.stopped && Date.now() < deadline && sent < maxRequests; i++) {
      const request = requests[i % requests.length]!
      sent++
      const started = performance.now()
      try {
        const res = await fetch(request.url, { headers: request.headers, signal: AbortSignal.timeout(30_000) })
        const body = await res.text()
        if (res.status !== request.status) failures.push(`${res.status} (expected ${request.status}): ${body.slice(0, 120)}`)
      } catch (error) {
        failures.push(`no answer: ${(error as Error).message}`)
      }
      latencies.push(performance.now() - started)
    }
  }

  const running = Promise.all(Array.from({ length: workers }, (_, i) => worker(i)))
  return {
    count: () => latencies.length,
    failures: () => failures,
    async stop () {
      state.stopped = true
      await running
      return { count: latencies.length, latencies, failures }
    }
  }
}
