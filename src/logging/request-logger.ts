import type { FastifyBaseLogger } from 'fastify'

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
const LEVELS: readonly LevelName[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

interface ChildOptions { level?: string, serializers?: unknown }

/** The part of pino's logger a request logger defers to. */
export interface ParentLogger extends FastifyBaseLogger {
  isLevelEnabled: (level: string) => boolean
}

/** A request logger whose pino child is made on its first enabled log call, if ever. */
export interface DeferredLogger {
  /** The logger the request's child is made from: the server's, or a route level's. */
  readonly parent: ParentLogger
  bindings: Record<string, unknown>
  real?: FastifyBaseLogger
}

/**
 * Fastify makes a pino child logger for every request (its bindings serialized, and for a route with
 * its own level every log method rebuilt), yet most requests log nothing but their access line,
 * which is written without it (access-log.ts). Each request gets instead a small object that becomes
 * a real child only when something at an enabled level is logged. It offers what Fastify's logger
 * contract asks: the level methods, `silent`, `level` and `child`.
 */
function deferredPrototype (parent: ParentLogger): object {
  const real = (self: DeferredLogger): FastifyBaseLogger => {
    self.real ??= parent.child(self.bindings)
    return self.real
  }
  const proto: Record<string, unknown> = {
    parent,
    silent () {},
    child (this: DeferredLogger, bindings: Record<string, unknown>, options?: ChildOptions) {
      return real(this).child(bindings, options as never)
    }
  }
  for (const level of LEVELS) {
    // Once the child exists it decides (its level may have been changed on this very logger).
    proto[level] = function (this: DeferredLogger, ...args: unknown[]) {
      if (this.real !== undefined || parent.isLevelEnabled(level)) (real(this)[level] as (...a: unknown[]) => void)(...args)
    }
  }
  Object.defineProperty(proto, 'level', {
    get (this: DeferredLogger) { return this.real?.level ?? parent.level },
    set (this: DeferredLogger, value: string) { real(this).level = value }
  })
  return proto
}

/** The request logger's parent and bindings, while no pino child was made for it. */
export function deferredParts (logger: FastifyBaseLogger): DeferredLogger | undefined {
  const deferred = logger as unknown as Partial<DeferredLogger>
  return deferred.parent !== undefined && deferred.real === undefined ? deferred as DeferredLogger : undefined
}

/**
 * Fastify's `childLoggerFactory`: every request gets a deferred logger (see above), except on a route
 * with its own serializers, which gets an ordinary pino child.
 */
export function createChildLoggerFactory () {
  const prototypes = new WeakMap<FastifyBaseLogger, Map<string | undefined, object>>()
  return function childLogger (logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: ChildOptions): FastifyBaseLogger {
    if (options.serializers !== undefined) return logger.child(bindings, options as never)
    let byLevel = prototypes.get(logger)
    if (byLevel === undefined) {
      byLevel = new Map()
      prototypes.set(logger, byLevel)
    }
    let proto = byLevel.get(options.level)
    if (proto === undefined) {
      // A route's own level is applied once, to one child shared by the route's requests.
      const parent = options.level === undefined ? logger : logger.child({}, { level: options.level })
      proto = deferredPrototype(parent as ParentLogger)
      byLevel.set(options.level, proto)
    }
    const deferred: DeferredLogger = Object.create(proto)
    deferred.bindings = bindings
    return deferred as unknown as FastifyBaseLogger
  }
}
