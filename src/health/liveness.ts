import type { HealthStatus } from './status.ts'

export interface LivenessResult {
  status: HealthStatus
  checks: Record<string, HealthStatus>
  eventLoopDelayMs: number
}

/** The process alone: an event loop slower than the bound is Unhealthy; no dependency counts. */
export function livenessOf (eventLoopDelayMs: number, maxEventLoopDelayMs: number): LivenessResult {
  const delay = Math.round(eventLoopDelayMs)
  const eventLoop: HealthStatus = delay > maxEventLoopDelayMs ? 'Unhealthy' : 'Healthy'
  return { status: eventLoop, checks: { 'event-loop': eventLoop }, eventLoopDelayMs: delay }
}
