import type { RouteOptions } from 'fastify'

export function isApiPath (path: string): boolean {
  return path === '/api' || path.startsWith('/api/')
}

/** The versions a route serves, or undefined when it is version-neutral. */
export function routeVersions (route: Pick<RouteOptions, 'constraints'>): readonly string[] | undefined {
  const declared = route.constraints?.apiVersion as string | readonly string[] | undefined
  if (declared === undefined) return undefined
  return typeof declared === 'string' ? [declared] : declared
}
