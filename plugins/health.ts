import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createHealthRegistry, type CheckOptions, type CheckResult, type HealthCheck, type ProbeTag } from '../src/health/registry.js'
import { createLifecycle, type Lifecycle } from '../src/health/lifecycle.js'
import { httpStatusOf, worstOf, type HealthStatus } from '../src/health/status.js'

export interface ProbeResult {
  status: HealthStatus
  /** Each check's own status by name (a failing non-critical check degrades `status` only). */
  checks: Record<string, HealthStatus>
}

export type ReadinessListener = (status: HealthStatus) => void

export interface Health {
  /** Adds a check; `tags` say which probes include it (default `ready` and `deep`). */
  register: (name: string, check: HealthCheck, options?: CheckOptions) => void
  has: (name: string) => boolean
  names: (tag?: ProbeTag) => string[]
  /** The newest result of one check, without running it. */
  latest: (name: string) => CheckResult | undefined
  /** A fresh result of one check, bounded by its timeout and its cacheTtl (single flight). */
  run: (name: string) => Promise<CheckResult>
  /** Runs the given checks (all by default), each bounded by its timeout and cacheTtl. */
  runAll: (names?: string[]) => Promise<CheckResult[]>
  /** Readiness from the results of the background refresh: never waits, never touches a dependency. */
  readiness: () => ProbeResult
  /** Starting until boot is over (every startup check Healthy once), then Healthy for good. */
  startup: () => HealthStatus
  /** booting -> started -> serving -> draining: what the probes, admission and shutdown read. */
  lifecycle: Pick<Lifecycle, 'phase' | 'entered' | 'reached'>
  /** The process alone: is its event loop responsive? */
  liveness: () => ProbeResult & { eventLoopDelayMs: number }
  /** Runs the ready and startup checks now (the background refresh does this on an interval). */
  refresh: () => Promise<void>
  /** Readiness turns NotReady at once and stays so: the first step of a graceful shutdown. */
  beginShutdown: () => void
  onReadinessChange: (listener: ReadinessListener) => void
  onResult: (listener: (result: CheckResult) => void) => void
}

declare module 'fastify' {
  interface FastifyInstance {
    health: Health
  }
}

/**
 * The health registry: plugins register checks, the probes read them. Ready and startup checks run
 * in the background on an interval, so load balancers polling readiness cost no dependency work.
 */
async function healthPlugin (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  const log = fastify.log.child({ component: 'health' })
  const registry = createHealthRegistry({ timeout: config.HEALTH_CHECK_TIMEOUT_MS, cacheTtl: config.HEALTH_CACHE_TTL_MS }, log)
  const interval = config.HEALTH_REFRESH_INTERVAL_MS

  const lifecycle = createLifecycle(phase => { log.info({ phase }, `lifecycle: ${phase}`) })
  let closed = false
  let timer: NodeJS.Timeout | undefined
  let lastReadiness: HealthStatus | undefined
  const readinessListeners: ReadinessListener[] = []

  function backgroundNames (): string[] {
    return [...new Set([...registry.names('ready'), ...registry.names('startup')])]
  }

  // A background result older than a few refresh rounds means the refresh itself is stuck.
  function currentStatus (name: string): { own: HealthStatus, effective: HealthStatus } {
    const result = registry.latest(name)
    if (result === undefined) return { own: 'Starting', effective: 'Starting' }
    const staleAfter = 3 * Math.max(interval, registry.cacheTtlOf(name)) + registry.timeoutOf(name)
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

  function announceReadiness (): void {
    const status = readiness().status
    if (status === lastReadiness) return
    lastReadiness = status
    // Business routes take work from the first moment readiness answers 200.
    if (httpStatusOf(status) === 200) lifecycle.advance('serving')
    for (const listener of readinessListeners) listener(status)
  }

  // Startup is the boot phase only: a dependency that is down keeps readiness 503, never startup.
  function updateStartup (): void {
    if (lifecycle.entered('started')) return
    const pending = registry.names('startup').filter(name => registry.latest(name)?.status !== 'Healthy')
    if (pending.length === 0) lifecycle.advance('started')
  }

  async function refresh (): Promise<void> {
    const runs = Promise.all(backgroundNames().map(name => registry.run(name)))
    // The startup checks share the runs above (single flight); boot ends without waiting for a dependency.
    await Promise.all(registry.names('startup').map(name => registry.run(name)))
    updateStartup()
    await runs
    announceReadiness()
  }

  function schedule (): void {
    if (closed) return
    timer = setTimeout(() => { refresh().finally(schedule).catch(() => {}) }, interval)
    timer.unref()
  }

  const health: Health = {
    register: registry.register,
    has: registry.has,
    names: registry.names,
    run: registry.run,
    latest: registry.latest,
    runAll: names => Promise.all((names ?? registry.names()).map(name => registry.run(name))),
    readiness,
    startup: () => lifecycle.entered('started') ? 'Healthy' : 'Starting',
    lifecycle,
    liveness () {
      const eventLoopDelayMs = Math.round(fastify.memoryUsage().eventLoopDelay)
      const eventLoop: HealthStatus = eventLoopDelayMs > config.LIVENESS_MAX_EVENT_LOOP_DELAY_MS ? 'Unhealthy' : 'Healthy'
      return { status: eventLoop, checks: { 'event-loop': eventLoop }, eventLoopDelayMs }
    },
    refresh,
    beginShutdown () {
      if (lifecycle.phase() === 'draining') return
      lifecycle.advance('draining')
      announceReadiness()
    },
    onReadinessChange: listener => { readinessListeners.push(listener) },
    onResult: registry.onResult
  }
  fastify.decorate('health', health)

  // The settings were validated before the app was built: being here means they are loaded.
  health.register('configuration', () => 'Healthy', { tags: ['ready', 'startup'] })

  fastify.addHook('onReady', async () => {
    refresh().finally(schedule).catch(() => {})
  })
  fastify.addHook('preClose', async () => {
    health.beginShutdown()
    closed = true
    clearTimeout(timer)
  })
}

export default fp(healthPlugin, { name: 'health', fastify: '5.x', dependencies: ['config', 'load-shedding'] })
