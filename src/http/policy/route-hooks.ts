import type { FastifyInstance, RouteOptions } from 'fastify'

type LifecycleHook = 'onRequest' | 'preParsing' | 'onSend' | 'onResponse' | 'onError'

/**
 * Adds a hook to one route from a route step (below), so that it runs only on the routes that need
 * it instead of on every request. A new array each time: Fastify shares a GET route's options with
 * its HEAD route, which is announced separately.
 */
export function addRouteHook<H extends LifecycleHook> (route: RouteOptions, name: H, hook: NonNullable<RouteOptions[H]> extends Array<infer F> | infer F ? F : never): void {
  const current = route[name] as unknown
  const existing = current === undefined ? [] : Array.isArray(current) ? current : [current]
  ;(route as unknown as Record<string, unknown>)[name] = [...existing, hook]
}

/**
 * The plugins that add hooks to routes or set their options, in the order their steps run on each
 * declared route. Hooks of one kind run in the order they were added, so this list, and not the
 * order in which the plugins load, is the order of a request's hooks (plugins/route-hooks.ts applies it):
 *
 * - `access-log` and `tracing` only set options (log level, `otel`), read later by Fastify and @fastify/otel.
 * - onRequest: the cacheable mark (`http-conventions`), a bad version refused (`api-versioning`), load
 *   shed (`load-shedding`), then the head's token verified (`bearer-auth`): an overloaded instance
 *   sheds before it spends a signature check, and a wrong version is refused before either.
 * - preParsing: the rate limit counts the caller (`rate-limit`) before `bearer-auth` answers a refused
 *   token, so refusals are counted too.
 * - preValidation and preHandler: `bearer-auth` and `starting-gate` put theirs first, before the route's own.
 * - onSend, onResponse, onError: `early-answer`, `metrics` and `storage-health` after the others;
 *   none of them reads what another one does.
 *
 * Hooks every route runs (`requireHost`, `conventionHeaders`, `completeRequestSpan`) are global and
 * run before any of these.
 */
export const ROUTE_STEP_ORDER = [
  'access-log',
  'tracing',
  'http-conventions',
  'api-versioning',
  'load-shedding',
  'rate-limit',
  'bearer-auth',
  'starting-gate',
  'handler-timeout',
  'early-answer',
  'metrics',
  'storage-health'
] as const

export type RouteStepOwner = typeof ROUTE_STEP_ORDER[number]

/** A plugin's work on one declared route: `this` is the scope declaring it (its policy defaults count). */
export type RouteStep = (this: FastifyInstance, route: RouteOptions) => void
