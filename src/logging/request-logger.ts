import type { FastifyBaseLogger } from 'fastify'

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
const LEVELS: readonly LevelName[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

interface ChildOptions { level?: string, serializers?: unknown }

/** A request logger whose pino child is made on its first enabled log call, if ever. */
interface DeferredLogger {
  bindings: Record<string, unknown>
  real?: FastifyBaseLogger
}

/**
 * The request logger of a route with its own log level (`/ping`, the health probes). Those routes
 * log nothing on success, yet pino would build a child logger (its bindings serialized, every log
 * method rebuilt for the level) for each request. Here the route's level is applied once, and each
 * request gets a small object that becomes a real child only when something at an enabled level
 * (an error) is logged. It offers what Fastify's logger contract asks: the level methods, `silent`,
 * `level` and `child`.
 */
function deferredPrototype (parent: FastifyBaseLogger): object {
  const real = (self: DeferredLogger): FastifyBaseLogger => {
    self.real ??= parent.child(self.bindings)
    return self.real
  }
  const proto: Record<string, unknown> = {
    silent () {},
    child (this: DeferredLogger, bindings: Record<string, unknown>, options?: ChildOptions) {
      return real(this).child(bindings, options as never)
    }
  }
  const enabled = new Set(LEVELS.filter(level => (parent as unknown as { isLevelEnabled: (l: string) => boolean }).isLevelEnabled(level)))
  for (const level of LEVELS) {
    proto[level] = enabled.has(level)
      ? function (this: DeferredLogger, ...args: unknown[]) { (real(this)[level] as (...a: unknown[]) => void)(...args) }
      // Below the route's level nothing is written, unless the level was changed on this very logger.
      : function (this: DeferredLogger, ...args: unknown[]) { if (this.real !== undefined) (this.real[level] as (...a: unknown[]) => void)(...args) }
  }
  Object.defineProperty(proto, 'level', {
    get (this: DeferredLogger) { return this.real?.level ?? parent.level },
    set (this: DeferredLogger, value: string) { real(this).level = value }
  })
  return proto
}

/**
 * Fastify's `childLoggerFactory`: routes at the server's level get an ordinary pino child; routes
 * with their own level get a deferred one (see above).
 */
export function createChildLoggerFactory () {
  const prototypes = new WeakMap<FastifyBaseLogger, Map<string, object>>()
  return function childLogger (logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: ChildOptions): FastifyBaseLogger {
    if (options.level === undefined || options.serializers !== undefined) return logger.child(bindings, options as never)
    let byLevel = prototypes.get(logger)
    if (byLevel === undefined) {
      byLevel = new Map()
      prototypes.set(logger, byLevel)
    }
    let proto = byLevel.get(options.level)
    if (proto === undefined) {
      proto = deferredPrototype(logger.child({}, { level: options.level }))
      byLevel.set(options.level, proto)
    }
    const deferred: DeferredLogger = Object.create(proto)
    deferred.bindings = bindings
    return deferred as unknown as FastifyBaseLogger
  }
}
