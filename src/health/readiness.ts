import type { HealthRegistry } from './registry.ts'
import type { Lifecycle } from './lifecycle.ts'
import { httpStatusOf, worstOf, type HealthStatus } from './status.ts'

export interface ProbeResult {
  status: HealthStatus
  /** Each check's own status by name (a failing non-critical check degrades `status` only). */
  checks: Record<string, HealthStatus>
}

export type ReadinessListener = (status: HealthStatus) => void

/**
 * Readiness and startup, read from the lifecycle and the newest background results: they never wait and
 * never touch a dependency. `refresh` runs the ready and startup checks and moves the lifecycle on:
 * `started` once every startup check was Healthy, `serving` once readiness answers 200.
 */
export function createReadiness (registry: HealthRegistry, lifecycle: Lifecycle, refreshIntervalMs: number) {
  let lastStatus: HealthStatus | undefined
  const listeners: ReadinessListener[] = []

  // A background result older than a few refresh rounds means the refresh itself is stuck.
  function currentStatus (name: string): { own: HealthStatus, effective: HealthStatus } {
    const result = registry.latest(name)
    if (result === undefined) return { own: 'Starting', effective: 'Starting' }
    const staleAfter = 3 * Math.max(refreshIntervalMs, registry.cacheTtlOf(name)) + registry.timeoutOf(name)
    if (Date.now() - result.checkedAt > staleAfter) return { own: 'Unknown', effective: 'Unknown' }
    return { own: result.status, effective: result.effectiveStatus }
  }

  function readiness (): ProbeResult {
    const checks: Record<string, HealthStatus> = {}
    const phase = lifecycle.phase()
    const weights: HealthStatus[] = [phase === 'booting' || phase === 'draining' ? 'NotReady' : 'Healthy']
    for (const name of registry.names('ready')) {
      const { own, effective } = currentStatus(name)
      checks[name] = own
      weights.push(effective)
    }
    return { status: worstOf(weights), checks }
  }

  function announce (): void {
    const status = readiness().status
    if (status === lastStatus) return
    lastStatus = status
    // Business routes take work from the first moment readiness answers 200.
    if (httpStatusOf(status) === 200) lifecycle.advance('serving')
    for (const listener of listeners) listener(status)
  }

  // Startup is the boot phase only: a dependency that is down keeps readiness 503, never startup.
  function updateStartup (): void {
    if (lifecycle.entered('started')) return
    const pending = registry.names('startup').filter(name => registry.latest(name)?.status !== 'Healthy')
    if (pending.length === 0) lifecycle.advance('started')
  }

  /** `changed`: checks whose dependency has just changed state, run anew whatever result is kept. */
  async function refresh (changed: readonly string[] = []): Promise<void> {
    const backgroundNames = [...new Set([...registry.names('ready'), ...registry.names('startup')])]
    const runs = new Map(backgroundNames.map(name => [name, registry.run(name, { anew: changed.includes(name) })]))
    const all = Promise.all(runs.values())
    all.catch(() => {}) // awaited below, after the startup checks: not an unhandled rejection meanwhile
    // Boot ends with the startup checks, without waiting for a dependency.
    await Promise.all(registry.names('startup').map(async name => await runs.get(name)))
    updateStartup()
    await all
    announce()
  }

  // Draining turns readiness NotReady at once: listeners (gRPC health) hear it in the same tick.
  lifecycle.onEnter(phase => { if (phase === 'draining') announce() })

  return {
    readiness,
    startup: (): HealthStatus => lifecycle.entered('started') ? 'Healthy' : 'Starting',
    refresh,
    onChange: (listener: ReadinessListener) => { listeners.push(listener) }
  }
}

export type Readiness = ReturnType<typeof createReadiness>
