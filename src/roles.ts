// What a process does, by SERVICE_ROLE: the one place that decides what each role loads. One image
// runs every role, so API instances and delivery workers are scaled apart (docs/operations.md, "Roles").

export const SERVICE_ROLES = ['all', 'api', 'worker'] as const
export type ServiceRole = typeof SERVICE_ROLES[number]

export interface RoleParts {
  /** Works the delivery queue: sends deliveries to receivers. Every role queues them (dispatch). */
  sendsDeliveries: boolean
  /**
   * Readiness waits for the delivery queue to run and answer. Only where delivering is all the
   * process does: an instance that also serves the API stays in rotation for its clients.
   */
  readyWithQueue: boolean
  /** The route files it serves, as paths under routes/ without extension; undefined: every one. */
  routes?: readonly string[]
  /** The plugins it leaves out, by file name under plugins/ without extension. */
  withoutPlugins: readonly string[]
}

const ROLES: Record<ServiceRole, RoleParts> = {
  all: { sendsDeliveries: true, readyWithQueue: false, withoutPlugins: [] },
  api: { sendsDeliveries: false, readyWithQueue: false, withoutPlugins: [] },
  worker: {
    sendsDeliveries: true,
    readyWithQueue: true,
    // Named one by one: a route added later is the API's unless it is added here.
    routes: ['ping', 'metrics', 'health/probes', 'health/overview', 'health/dependencies'],
    // The API's documents, the heartbeats other services send it, and the Redis checks: a worker
    // needs Redis for nothing it does, so its readiness does not wait for Redis.
    withoutPlugins: ['openapi', 'heartbeats', 'cache-health']
  }
}

export function roleParts (role: ServiceRole): RoleParts {
  return ROLES[role]
}

/** `/health/probes.ts` (as @fastify/autoload names a file) to `health/probes`. */
function fileName (path: string): string {
  return path.replace(/^\//, '').replace(/\.[cm]?[jt]s$/, '')
}

/** For @fastify/autoload's ignoreFilter over routes/: true for a route file the role does not serve. */
export function skipsRoute (role: ServiceRole): (path: string) => boolean {
  const { routes } = ROLES[role]
  return path => routes !== undefined && !routes.includes(fileName(path))
}

/** For @fastify/autoload's ignoreFilter over plugins/: true for a plugin the role leaves out. */
export function skipsPlugin (role: ServiceRole): (path: string) => boolean {
  const { withoutPlugins } = ROLES[role]
  return path => withoutPlugins.includes(fileName(path))
}
