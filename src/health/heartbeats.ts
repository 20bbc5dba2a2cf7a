import type { HealthStatus } from './status.ts'

/** A heartbeat as pushed by a worker (docs/operations.md, "Health and status"), with what the service learned on receipt. */
export interface Heartbeat {
  service: string
  instanceId: string
  status: 'alive'
  /** When the sender says it sent it (ISO 8601). */
  timestamp: string
  /** Epoch milliseconds when this service received it: silence is measured from here. */
  receivedAt: number
  /** How often the sender promises to beat, in milliseconds. */
  intervalMs: number
}

export interface InstanceState {
  key: string
  status: HealthStatus
  silentForMs: number
}

export function instanceKey (heartbeat: Pick<Heartbeat, 'service' | 'instanceId'>): string {
  return `${heartbeat.service}/${heartbeat.instanceId}`
}

/** An instance is Healthy while it beat within its interval times the tolerance, Unhealthy after. */
export function assess (heartbeats: Heartbeat[], tolerance: number, now: number): InstanceState[] {
  return heartbeats.map((heartbeat): InstanceState => {
    const silentForMs = Math.max(0, now - heartbeat.receivedAt)
    return {
      key: instanceKey(heartbeat),
      status: silentForMs > heartbeat.intervalMs * tolerance ? 'Unhealthy' : 'Healthy',
      silentForMs
    }
  }).sort((a, b) => a.key.localeCompare(b.key))
}

/** Whether a heartbeat could be parsed back from storage. */
export function isHeartbeat (value: unknown): value is Heartbeat {
  const v = value as Partial<Heartbeat> | null
  return typeof v === 'object' && v !== null && typeof v.service === 'string' && typeof v.instanceId === 'string' &&
    typeof v.receivedAt === 'number' && typeof v.intervalMs === 'number' && typeof v.timestamp === 'string'
}

// /health/deep lists at most this many instances by name, the unhealthy ones first; it counts them all.
const LISTED_INSTANCES = 50

/** The `workers` check's details: counts of every instance, and a bounded list of them by name. */
export function instanceDetails (states: readonly InstanceState[]): Record<string, string | number> {
  const unhealthy = states.filter(state => state.status !== 'Healthy')
  const details: Record<string, string | number> = { instances: states.length, unhealthy: unhealthy.length }
  for (const state of [...unhealthy, ...states.filter(state => state.status === 'Healthy')].slice(0, LISTED_INSTANCES)) details[state.key] = state.status
  return details
}
