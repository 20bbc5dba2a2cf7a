// The one table of API versions. Adding 3.0 is adding a row here, and to the version profile of each
// resource whose representation, paging or schema changes (src/representations/*-versions.ts); every
// route is then served in 3.0 too, and `npm run client:generate` writes its document's client.

export interface ApiVersionRow {
  /** `major.minor` (docs/api.md, "API versions"). */
  readonly version: string
  /** Served when a request names no version (docs/api.md, "API versions"). */
  readonly isDefault?: boolean
  /** Deprecation and sunset dates, when the version is deprecated, come from these settings (src/config.ts). */
  readonly deprecationSetting?: string
  readonly sunsetSetting?: string
  /**
   * What this version changes in a resource, by the resource's name, beside what the resource's own
   * version profile says: for a version declared together with its changes (a build with an extra row).
   */
  readonly profiles?: Readonly<Record<string, object>>
}

export const API_VERSION_ROWS: readonly ApiVersionRow[] = [
  { version: '1.0', isDefault: true, deprecationSetting: 'API_V1_DEPRECATION_DATE', sunsetSetting: 'API_V1_SUNSET_DATE' },
  { version: '2.0' }
]

/** A version of the table with its dates resolved from the settings. */
export interface ApiVersion {
  readonly version: string
  /** `v` and the version, `.0` dropped: `v1`, `v2`, `v2.1` (docs/api.md, "API versions"). */
  readonly group: string
  readonly isDefault: boolean
  readonly deprecated: boolean
  readonly deprecatedAt?: Date
  readonly sunsetAt?: Date
  /** The row's own resource changes (ApiVersionRow.profiles). */
  readonly profiles?: Readonly<Record<string, object>>
}

export interface ApiVersionTable {
  readonly versions: readonly ApiVersion[]
  readonly byVersion: ReadonlyMap<string, ApiVersion>
  readonly defaultVersion: ApiVersion
  /** The newest version that is not deprecated: where deprecation links point. */
  readonly current: ApiVersion
  /** Header values, joined once. */
  readonly supportedHeader: string
  readonly deprecatedHeader: string
}

export function groupOf (version: string): string {
  return 'v' + (version.endsWith('.0') ? version.slice(0, -2) : version)
}

/** The settings, by name: the validated Config (src/config.ts), which this table does not depend on. */
type Settings = Readonly<Record<string, unknown>>

function dateSetting (config: Settings, name: string | undefined): Date | undefined {
  if (name === undefined) return undefined
  const value = config[name]
  if (typeof value !== 'string') return undefined
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw new Error(`Invalid setting ${name}=${JSON.stringify(value)}: expected an ISO 8601 date`)
  return date
}

/** Throws when two rows name one version, or one group (`2` and `2.0` are both `/api/v2`). */
function refuseDuplicates (rows: readonly ApiVersionRow[]): void {
  const seen = new Map<string, string>()
  for (const { version } of rows) {
    const group = groupOf(version)
    const earlier = seen.get(group)
    if (earlier !== undefined) {
      throw new Error(`The API version table has ${earlier === version ? `version ${version} twice` : `versions ${earlier} and ${version}, both ${group}`}: one row per version`)
    }
    seen.set(group, version)
  }
}

/** The table with its dates; throws on a duplicate row, or when a sunset comes before its deprecation. */
export function buildVersionTable (config: Settings, rows: readonly ApiVersionRow[] = API_VERSION_ROWS): ApiVersionTable {
  refuseDuplicates(rows)
  const versions = rows.map((row): ApiVersion => {
    const deprecatedAt = dateSetting(config, row.deprecationSetting)
    const sunsetAt = dateSetting(config, row.sunsetSetting)
    if (sunsetAt !== undefined && (deprecatedAt === undefined || sunsetAt < deprecatedAt)) {
      throw new Error(`Invalid setting ${String(row.sunsetSetting)}=${JSON.stringify(config[row.sunsetSetting!])}: ` +
        `expected a date no earlier than ${String(row.deprecationSetting)} (${deprecatedAt?.toISOString() ?? 'unset'})`)
    }
    return {
      version: row.version,
      group: groupOf(row.version),
      isDefault: row.isDefault === true,
      deprecated: deprecatedAt !== undefined,
      ...(deprecatedAt !== undefined && { deprecatedAt }),
      ...(sunsetAt !== undefined && { sunsetAt }),
      ...(row.profiles !== undefined && { profiles: row.profiles })
    }
  })
  const defaults = versions.filter(v => v.isDefault)
  if (defaults.length !== 1) throw new Error('The API version table must have exactly one default version')
  const current = versions.filter(v => !v.deprecated).at(-1)
  if (current === undefined) throw new Error('The API version table must have a version that is not deprecated')
  return {
    versions,
    byVersion: new Map(versions.map(v => [v.version, v])),
    defaultVersion: defaults[0]!,
    current,
    supportedHeader: versions.map(v => v.version).join(', '),
    deprecatedHeader: versions.filter(v => v.deprecated).map(v => v.version).join(', ')
  }
}
