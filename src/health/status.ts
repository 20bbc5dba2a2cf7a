// Health statuses, their order of severity and their HTTP status (docs/operations.md, "Health and status").

export const HEALTH_STATUSES = ['Healthy', 'Unhealthy', 'Degraded', 'Unknown', 'Starting', 'NotReady', 'Timeout'] as const

export type HealthStatus = typeof HEALTH_STATUSES[number]

// Worst first: when several results are combined, the one that comes first here wins.
const SEVERITY: readonly HealthStatus[] = ['Unhealthy', 'Timeout', 'NotReady', 'Starting', 'Unknown', 'Degraded', 'Healthy']

function rank (status: HealthStatus): number {
  return SEVERITY.length - SEVERITY.indexOf(status)
}

/** The worst of the given statuses; an empty list is Healthy (nothing is wrong). */
export function worstOf (statuses: Iterable<HealthStatus>): HealthStatus {
  let worst: HealthStatus = 'Healthy'
  for (const status of statuses) if (rank(status) > rank(worst)) worst = status
  return worst
}

/** Healthy and Degraded still serve traffic (200); every other status is unavailable (503). */
export function httpStatusOf (status: HealthStatus): 200 | 503 {
  return status === 'Healthy' || status === 'Degraded' ? 200 : 503
}

/** A non-critical check that fails only degrades the aggregate: the service still works partially. */
export function asNonCritical (status: HealthStatus): HealthStatus {
  return status === 'Healthy' || status === 'Degraded' ? status : 'Degraded'
}

/** A number per status for gauges: 1 is serving, 0 is not (Degraded is 0.5). */
export function gaugeValueOf (status: HealthStatus): number {
  if (status === 'Healthy') return 1
  if (status === 'Degraded') return 0.5
  return 0
}
