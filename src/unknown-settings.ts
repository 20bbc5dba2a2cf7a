// Environment variables that look like one of the service's settings but are not one. A misspelled
// name is otherwise ignored without a word, and what it was meant to set keeps its default: with
// DATABSE_URL the service would run on the embedded database.

export interface UnknownSetting {
  name: string
  /** The known setting it most likely meant, when one is close. */
  meant?: string
}

// The families whose every name is ours: an unknown one among them is a typo or a setting that does not exist.
const OWN_PREFIXES = ['DATABASE_', 'AUTH_', 'REDIS_', 'SHED_', 'HEALTH_', 'HEARTBEAT_', 'SHUTDOWN_', 'RATE_LIMIT_', 'TLS_', 'API_V']

// Other programs' variables that happen to be close to one of ours.
const WELL_KNOWN = new Set(['SSL_CERT_FILE', 'SSL_CERT_DIR'])
// Kubernetes describes every service of the namespace to each container (a service `redis` gives
// REDIS_SERVICE_HOST, REDIS_PORT=tcp://...): those are not settings.
const SERVICE_LINK = /_SERVICE_(HOST|PORT)(_[A-Z0-9_]+)?$|_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$/

function isOtherProgramsVariable (name: string, value: string | undefined): boolean {
  if (WELL_KNOWN.has(name)) return true
  return SERVICE_LINK.test(name) && (name.includes('_SERVICE_') || /^(tcp|udp|sctp):\/\/|^[0-9.]+$|^[a-z]+$|^\d+$/.test(value ?? ''))
}

/** What the OpenTelemetry SDK reads: a name close to one of these is a typo as well. */
export const OTEL_SETTINGS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_TIMEOUT', 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_TRACES_EXPORTER',
  'OTEL_PROPAGATORS', 'OTEL_SDK_DISABLED', 'OTEL_LOG_LEVEL', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'OTEL_BSP_EXPORT_TIMEOUT', 'OTEL_NODE_RESOURCE_DETECTORS'
]

/** Edits (insert, delete, replace, swap two neighbours) between two names, stopping past `bound`. */
function distance (a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** The known name closest to `name`: one edit away for short names, two for longer ones. */
function closest (name: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const bound = candidate.length < 8 ? 1 : 2
    const d = distance(name, candidate, bound)
    if (d <= bound && d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** The variables of `env` that look like settings in `known` (or OpenTelemetry's) but are none of them. */
export function unknownSettings (env: Record<string, string | undefined>, known: readonly string[]): UnknownSetting[] {
  const all = [...known, ...OTEL_SETTINGS]
  const names = new Set(all)
  const found: UnknownSetting[] = []
  for (const name of Object.keys(env).sort()) {
    if (names.has(name) || isOtherProgramsVariable(name, env[name])) continue
    const meant = closest(name, all)
    if (meant !== undefined || OWN_PREFIXES.some(prefix => name.startsWith(prefix))) found.push(meant === undefined ? { name } : { name, meant })
  }
  return found
}

/** One line naming each: `DATABSE_URL (DATABASE_URL?), AUTH_FOO`. */
export function describeUnknown (settings: readonly UnknownSetting[]): string {
  return settings.map(setting => setting.meant === undefined ? setting.name : `${setting.name} (${setting.meant}?)`).join(', ')
}
