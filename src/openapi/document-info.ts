import type { ApiVersion, ApiVersionTable } from '../versioning/versions.ts'
import type { DocumentGroup } from './groups.ts'

const TITLE = 'recrutamento API'

// Who answers questions about the API, and the terms it is offered under (the service is not open source).
const CONTACT = { name: 'recrutamento API team' }
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }

/** Known tags with their descriptions; a tag a route uses that is missing here is described generically. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  user: 'The versioned example resource',
  versions: 'The API versions and where each is described',
  vagas: 'Vacancies',
  candidatos: 'Candidates and their actions: candidatar, aprovar, reprovar, transferir',
  ops: 'Connectivity, health and metrics endpoints, the same in every API version',
  health: 'Health and status endpoints for monitors, load balancers and orchestrators',
  metrics: 'Service metrics'
}

export function tagObjects (used: Iterable<string>): Array<{ name: string, description: string }> {
  return [...new Set(used)].sort().map(name => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations tagged ${name}` }))
}

function selection (table: ApiVersionTable, example: ApiVersion, vendorName: string): string {
  return [
    'A request selects its API version in any of these ways, which may be combined when they agree:',
    `- URL segment: \`/api/${example.group}/...\` (as in this document's paths);`,
    `- header \`x-api-version: ${example.version}\`;`,
    `- media type parameter: \`Accept: application/json; x-api-version=${example.version}\`;`,
    `- vendor media type: \`Accept: application/vnd.${vendorName}-${example.group}+json\`.`,
    '',
    `No version named means ${table.defaultVersion.version}. Responses report \`api-supported-versions\`, \`api-deprecated-versions\` and the serving \`x-api-version\`.`
  ].join('\n')
}

export function documentInfo (group: DocumentGroup, table: ApiVersionTable, vendorName: string) {
  const version = group.version
  if (version === undefined) {
    return {
      title: `${TITLE}: operations`,
      version: 'unversioned',
      contact: CONTACT,
      license: LICENSE,
      description: 'Connectivity, health and metrics endpoints. They are not versioned: the same in every API version.'
    }
  }
  const newer = table.versions.filter(v => !v.deprecated && v.version !== version.version)
  const lines: string[] = []
  if (version.deprecated) {
    lines.push(`**Deprecated.** API version ${version.version} is deprecated` +
      (version.deprecatedAt !== undefined ? ` since ${version.deprecatedAt.toISOString().slice(0, 10)}` : '') +
      (version.sunsetAt !== undefined ? ` and may stop answering after ${version.sunsetAt.toISOString().slice(0, 10)}` : '') +
      `. Newer versions are available: ${newer.map(v => `[${v.version}](/docs/${v.group})`).join(', ')}.`, '')
  }
  lines.push(selection(table, version, vendorName))
  return {
    title: `${TITLE} ${version.version}${version.deprecated ? ' (deprecated)' : ''}`,
    version: version.version,
    contact: CONTACT,
    license: LICENSE,
    description: lines.join('\n')
  }
}
