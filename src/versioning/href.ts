import { groupOf } from './versions.ts'

/**
 * The URL of an `/api` resource in one version: `versionedHref('2.0', '/vagas/7')` is
 * `/api/v2/vagas/7`. Links in a representation point at the version that produced it.
 */
export function versionedHref (version: string, path: string): string {
  const tail = path.startsWith('/api/') ? path.slice(4) : path.startsWith('/') ? path : `/${path}`
  return `/api/${groupOf(version)}${tail}`
}
