import type { ApiVersion, ApiVersionTable } from './versions.ts'

/**
 * What one resource does differently in each API version (its representation, paging, schema), keyed
 * by version label. `base` is the resource in the oldest version; each later version declares only
 * what it changes, and keeps every field it leaves out from the version before it.
 */
export interface VersionedResource<P extends object> {
  /** The resource's name: a version row may carry its changes under it (ApiVersionRow.profiles). */
  readonly name: string
  readonly base: P
  readonly changes: Readonly<Record<string, Partial<P>>>
}

/** One version of the table, with what a resource is in it. */
export interface ServedVersion<P> {
  readonly version: string
  readonly profile: P
}

/** Declares a resource's versions: what it is in the oldest version, then what each later version changes. */
export function versionedResource<P extends object> (name: string, base: P, changes: Readonly<Record<string, Partial<P>>> = {}): VersionedResource<P> {
  return { name, base, changes }
}

function rowChanges<P extends object> (version: ApiVersion, resource: VersionedResource<P>): Partial<P> | undefined {
  // A row's changes are typed by the resource that reads them: the row only carries them.
  return version.profiles?.[resource.name] as Partial<P> | undefined
}

/** Every version of the table, oldest first, with the resource's profile in it: routes are declared once per entry. */
export function servedVersions<P extends object> (table: ApiVersionTable, resource: VersionedResource<P>): Array<ServedVersion<P>> {
  const known = new Set(table.versions.map(v => v.version))
  for (const label of Object.keys(resource.changes)) {
    if (!known.has(label)) throw new Error(`The ${resource.name} resource declares changes for API version ${label}, which the version table does not have`)
  }
  let profile = resource.base
  return table.versions.map(version => {
    profile = { ...profile, ...resource.changes[version.version], ...rowChanges(version, resource) }
    return { version: version.version, profile }
  })
}
