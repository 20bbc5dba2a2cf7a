import type { RouteOptions } from 'fastify'

type LifecycleHook = 'onRequest' | 'preParsing' | 'onSend' | 'onResponse' | 'onError'

/**
 * Adds a hook to one route from an `onRoute` hook, so that it runs only on the routes that need it
 * instead of on every request. A new array each time: Fastify shares a GET route's options with its
 * HEAD route, which is announced separately.
 */
export function addRouteHook<H extends LifecycleHook> (route: RouteOptions, name: H, hook: NonNullable<RouteOptions[H]> extends Array<infer F> | infer F ? F : never): void {
  const current = route[name] as unknown
  const existing = current === undefined ? [] : Array.isArray(current) ? current : [current]
  ;(route as unknown as Record<string, unknown>)[name] = [...existing, hook]
}
