// Load at a fixed offered rate, the way clients that do not wait for each other arrive: one request
// every 1/rate seconds, whatever the answers, over a pool of keep-alive connections. autocannon's
// rate limit sends each connection's quota for a second in one burst at the start of the second,
// which measures the queue the burst builds rather than the latency at that rate.
import { Agent, request as httpRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { LoadResult } from './load-result.ts'

export interface OpenLoopRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

export interface OpenLoopOptions {
  baseUrl: string
  connections: number
  durationSeconds: number
  requestsPerSecond: number
  /**
   * Seconds sent at the same rate before the measured ones, their answers not counted: a fresh load
   * process, its connections and the server's code paths for them warm up there, not in the figures.
   */
  warmupSeconds?: number
  timeoutMs?: number
}

/** The value at `fraction` (0.99: p99) of values sorted in ascending order; 0 for none. */
export function percentile (sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number
}

/**
 * Sends `next()` at the offered rate for the duration and waits for the last answer. Latency is
 * counted from when a request was due, not from when a free connection let it leave, so a server
 * that falls behind shows it in the figures (no coordinated omission).
 */
export async function openLoop (options: OpenLoopOptions, next: () => OpenLoopRequest): Promise<LoadResult> {
  const url = new URL(options.baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  let errors = 0
  let timeouts = 0

  const interval = 1000 / options.requestsPerSecond
  const start = performance.now()
  const measuredFrom = start + (options.warmupSeconds ?? 0) * 1000
  const end = measuredFrom + options.durationSeconds * 1000

  const send = (request: OpenLoopRequest, due: number) => new Promise<void>(resolve => {
    const counted = due >= measuredFrom
    // From when it was due, or from when it left if the loop sent it early (it does not sleep under 1 ms).
    const from = Math.min(due, performance.now())
    const outgoing = httpRequest({ agent, host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers }, response => {
      response.resume()
      response.on('end', () => {
        if (!counted) { resolve(); return }
        latencies.push(performance.now() - from)
        const code = String(response.statusCode)
        statusCodes[code] = (statusCodes[code] ?? 0) + 1
        resolve()
      })
    })
    let timedOut = false
    outgoing.setTimeout(options.timeoutMs ?? 10_000, () => { timedOut = true; outgoing.destroy() })
    outgoing.on('error', () => {
      if (counted && timedOut) timeouts++
      else if (counted) errors++
      resolve()
    })
    outgoing.end(request.body)
  })

  const pending: Array<Promise<void>> = []
  for (let sent = 0; ; sent++) {
    const due = start + sent * interval
    if (due >= end) break
    const wait = due - performance.now()
    if (wait >= 1) await sleep(wait)
    pending.push(send(next(), due))
  }
  await Promise.all(pending)
  agent.destroy()

  latencies.sort((a, b) => a - b)
  const total = latencies.length
  const non2xx = Object.entries(statusCodes).reduce((sum, [code, count]) => code.startsWith('2') ? sum : sum + count, 0)
  return {
    requestsPerSecond: total / options.durationSeconds,
    latencyP50: percentile(latencies, 0.5),
    latencyP99: percentile(latencies, 0.99),
    total,
    non2xx,
    errors,
    timeouts,
    statusCodes
  }
}
