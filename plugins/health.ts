import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createHealthRegistry, type CheckOptions, type CheckResult, type HealthCheck, type ProbeTag } from '../src/health/registry.ts'
import { createLifecycle, type Lifecycle } from '../src/health/lifecycle.ts'
import { createReadiness, type ProbeResult, type ReadinessListener } from '../src/health/readiness.ts'
import { createScheduler } from '../src/health/scheduler.ts'
import { livenessOf, type LivenessResult } from '../src/health/liveness.ts'
import type { HealthStatus } from '../src/health/status.ts'

export type { ProbeResult, ReadinessListener }

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
  liveness: () => LivenessResult
  /**
   * Runs the ready and startup checks now (the background refresh does this on an interval); those
   * named in `changed` run anew even while an earlier result is kept.
   */
  refresh: (changed?: readonly string[]) => Promise<void>
  /**
   * Enters `draining`: readiness turns NotReady at once and stays so. The process's shutdown
   * (src/service-process.ts) calls it, before its drain delay; a second call changes nothing.
   */
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
 * This file only puts the parts together: registry (src/health/registry.ts), lifecycle, readiness
 * and startup, the background scheduler and liveness each live in their own module.
 */
async function healthPlugin (fastify: FastifyInstance): Promise<void> {
  const config = fastify.config
  const log = fastify.log.child({ component: 'health' })
  const registry = createHealthRegistry({ timeout: config.HEALTH_CHECK_TIMEOUT_MS, cacheTtl: config.HEALTH_CACHE_TTL_MS }, log)
  const lifecycle = createLifecycle()
  lifecycle.onEnter(phase => { log.info({ phase }, `lifecycle: ${phase}`) })
  const readiness = createReadiness(registry, lifecycle, config.HEALTH_REFRESH_INTERVAL_MS)
  const scheduler = createScheduler(readiness.refresh, config.HEALTH_REFRESH_INTERVAL_MS)

  const health: Health = {
    register: registry.register,
    has: registry.has,
    names: registry.names,
    run: registry.run,
    latest: registry.latest,
    runAll: names => Promise.all((names ?? registry.names()).map(name => registry.run(name))),
    readiness: readiness.readiness,
    startup: readiness.startup,
    lifecycle,
    liveness: () => livenessOf(fastify.memoryUsage().eventLoopDelay, config.LIVENESS_MAX_EVENT_LOOP_DELAY_MS),
    refresh: readiness.refresh,
    beginShutdown: () => { lifecycle.advance('draining') },
    onReadinessChange: readiness.onChange,
    onResult: registry.onResult
  }
  fastify.decorate('health', health)

  // The settings were validated before the app was built: being here means they are loaded.
  health.register('configuration', () => 'Healthy', { tags: ['ready', 'startup'] })

  fastify.addHook('onReady', async () => { scheduler.start() })
  // The process begins shutdown at its signal (src/service-process.ts), before the drain delay; a close with no
  // signal (an embedding, a script) still drains: beginning twice changes nothing.
  fastify.addHook('preClose', async () => {
    health.beginShutdown()
    scheduler.stop()
  })
}

export default fp(healthPlugin, { name: 'health', fastify: '5.x', dependencies: ['config', 'process-load'] })
