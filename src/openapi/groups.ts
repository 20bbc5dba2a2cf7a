import type { RouteOptions } from 'fastify'
import type { ApiVersion, ApiVersionTable } from '../versioning/versions.ts'
import { versionedHref } from '../versioning/href.ts'
import { isApiPath, routeVersions } from '../versioning/route-versions.ts'

/** One OpenAPI document: a version group (`v1`, `v2`) or the version-neutral `ops` group. */
export interface DocumentGroup {
  name: string
  version: ApiVersion | undefined
  /** Where the document and its interactive docs are served. */
  docsPath: string
  documentPath: string
}

export function documentGroups (table: ApiVersionTable): DocumentGroup[] {
  const groups = table.versions.map(version => ({ name: version.group, version }))
  return [...groups, { name: 'ops', version: undefined }].map(group => ({
    ...group,
    docsPath: `/docs/${group.name}`,
    documentPath: `/docs/${group.name}/openapi.json`
  }))
}

/**
 * Where a route appears in a group's document, or undefined when it does not: `/api` routes in each
 * version they serve at `/api/v{n}/...`; every other route, except the documentation's own, in `ops`.
 */
export function documentedPath (group: DocumentGroup, route: Pick<RouteOptions, 'url' | 'constraints'>): string | undefined {
  const path = route.url
  if (path === '/docs' || path.startsWith('/docs/')) return undefined
  if (group.version === undefined) return isApiPath(path) ? undefined : path
  if (!isApiPath(path)) return undefined
  const versions = routeVersions(route)
  if (versions !== undefined && !versions.includes(group.version.version)) return undefined
  return versionedHref(group.version.version, path)
}
