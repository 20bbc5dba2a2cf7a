import { performance } from 'node:perf_hooks'
import { logCause } from '../logging/redacted-cause.ts'
import { asNonCritical, httpStatusOf, type HealthStatus } from './status.ts'

/** The probes a check can take part in. Liveness never includes a registered check. */
export type ProbeTag = 'ready' | 'startup' | 'deep'

/** Facts about a dependency that may be shown to an authorised caller (never hosts or secrets). */
export type CheckDetails = Record<string, string | number | boolean>

export interface CheckReport {
  status: HealthStatus
  details?: CheckDetails
}

/**
 * A health check. Resolving with nothing means Healthy; throwing means Unhealthy (the error is logged,
 * never shown). The signal aborts when the check runs out of time, so it can stop its work.
 */
export type CheckOutcome = HealthStatus | CheckReport | undefined | void
export type HealthCheck = (signal: AbortSignal) => Promise<CheckOutcome> | CheckOutcome

export interface CheckOptions {
  /** Milliseconds the check may take; after that it is reported `Timeout`. */
  timeout?: number
  /** Probes that include the check; default `ready` and `deep`. */
  tags?: readonly ProbeTag[]
  /** A failing non-critical check makes the aggregate Degraded instead of Unhealthy. Default true. */
  critical?: boolean
  /** A result younger than this many milliseconds is reused instead of running the check again. */
  cacheTtl?: number
}

export interface CheckResult {
  name: string
  /** The check's own status, before criticality is applied. */
  status: HealthStatus
  /** What this result weighs in an aggregate: a failing non-critical check counts as Degraded. */
  effectiveStatus: HealthStatus
  critical: boolean
  latencyMs: number
  /** Epoch milliseconds when the result was produced. */
  checkedAt: number
  details?: CheckDetails
}

interface Entry {
  name: string
  check: HealthCheck
  timeout: number
  tags: ReadonlySet<ProbeTag>
  critical: boolean
  cacheTtl: number
  last?: CheckResult
  inflight?: Promise<CheckResult>
}

export interface RegistryDefaults {
  timeout: number
  cacheTtl: number
}

export interface RegistryLog {
  warn: (obj: object, msg: string) => void
  info: (obj: object, msg: string) => void
}

export type ResultListener = (result: CheckResult) => void

const NAME = /^[a-z][a-z0-9-]{0,62}$/

function normalise (outcome: CheckOutcome): CheckReport {
  if (outcome === undefined || outcome === null) return { status: 'Healthy' }
  if (typeof outcome === 'string') return { status: outcome }
  return outcome
}

// Still waiting for its first connection (NotReady, Starting) is not a failure to report.
const FAILED: ReadonlySet<HealthStatus> = new Set(['Unhealthy', 'Timeout', 'Unknown'])

/**
 * Named checks with per-check timeouts, result caching and single flight: however many callers ask
 * at once, a check has at most one run in flight and runs at most once per cacheTtl.
 */
export function createHealthRegistry (defaults: RegistryDefaults, log: RegistryLog) {
  const entries = new Map<string, Entry>()
  const listeners: ResultListener[] = []

  /**
   * One line when a check's dependency is lost (with the cause's name and code) and one when it is
   * back: an outage writes two lines, however often the check runs meanwhile.
   */
  function logChange (name: string, was: HealthStatus | undefined, now: HealthStatus, cause: object): void {
    if (httpStatusOf(now) === 200) {
      if (was !== undefined && httpStatusOf(was) !== 200) log.info({ check: name, status: now, was }, 'dependency back')
    } else if (FAILED.has(now) && (was === undefined || !FAILED.has(was))) {
      log.warn({ check: name, status: now, ...cause }, 'dependency lost')
    }
  }

  function record (entry: Entry, report: CheckReport, started: number, cause: object = {}): CheckResult {
    const result: CheckResult = {
      name: entry.name,
      status: report.status,
      effectiveStatus: entry.critical ? report.status : asNonCritical(report.status),
      critical: entry.critical,
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
      checkedAt: Date.now(),
      ...(report.details !== undefined && { details: report.details })
    }
    logChange(entry.name, entry.last?.status, result.status, cause)
    entry.last = result
    for (const listener of listeners) listener(result)
    return result
  }

  function execute (entry: Entry): Promise<CheckResult> {
    const started = performance.now()
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    let cause: object = {}
    const outOfTime = new Promise<CheckReport>(resolve => {
      timer = setTimeout(() => {
        controller.abort()
        cause = { timeoutMs: entry.timeout }
        resolve({ status: 'Timeout' })
      }, entry.timeout)
    })
    const work = (async () => entry.check(controller.signal))().then(normalise, (error: unknown) => {
      cause = logCause(error)
      return { status: 'Unhealthy' as const }
    })
    return Promise.race([work, outOfTime]).then(report => {
      clearTimeout(timer)
      return record(entry, report, started, cause)
    })
  }

  /** Runs the check; callers meanwhile share this run (single flight). */
  function begin (entry: Entry): Promise<CheckResult> {
    const inflight = execute(entry)
    entry.inflight = inflight
    inflight.finally(() => { if (entry.inflight === inflight) entry.inflight = undefined }).catch(() => {})
    return inflight
  }

  function entryOf (name: string): Entry {
    const entry = entries.get(name)
    if (entry === undefined) throw new Error(`No health check is registered as ${name}`)
    return entry
  }

  return {
    register (name: string, check: HealthCheck, options: CheckOptions = {}): void {
      if (!NAME.test(name)) throw new Error(`Health check name ${name} must be lower case letters, digits and hyphens`)
      if (entries.has(name)) throw new Error(`A health check named ${name} is already registered`)
      entries.set(name, {
        name,
        check,
        timeout: options.timeout ?? defaults.timeout,
        tags: new Set(options.tags ?? ['ready', 'deep']),
        critical: options.critical ?? true,
        cacheTtl: options.cacheTtl ?? defaults.cacheTtl
      })
    },

    has: (name: string): boolean => entries.has(name),

    /** Names of the checks, in registration order; with a tag, only those that carry it. */
    names (tag?: ProbeTag): string[] {
      return [...entries.values()].filter(entry => tag === undefined || entry.tags.has(tag)).map(entry => entry.name)
    },

    /** The newest result of a check, without running it. */
    latest: (name: string): CheckResult | undefined => entryOf(name).last,

    /** How long a result of this check stays fresh, in milliseconds. */
    cacheTtlOf: (name: string): number => entryOf(name).cacheTtl,

    timeoutOf: (name: string): number => entryOf(name).timeout,

    /**
     * A fresh result: the cached one while younger than cacheTtl, else the run in flight, else a new run.
     * `anew`: only a result of a run begun after this call (what the dependency said before is stale).
     */
    run (name: string, options: { anew?: boolean } = {}): Promise<CheckResult> {
      const entry = entryOf(name)
      const last = entry.last
      if (options.anew !== true && last !== undefined && Date.now() - last.checkedAt < entry.cacheTtl) return Promise.resolve(last)
      const begun = entry.inflight
      if (begun === undefined) return begin(entry)
      if (options.anew !== true) return begun
      // Once the earlier run ends: a run another caller began since is also later than this call.
      const later = (): Promise<CheckResult> => entry.inflight !== undefined && entry.inflight !== begun ? entry.inflight : begin(entry)
      return begun.then(later, later)
    },

    onResult (listener: ResultListener): void {
      listeners.push(listener)
    }
  }
}

export type HealthRegistry = ReturnType<typeof createHealthRegistry>
