// The OpenAPI documents exactly as the service serves them, from an app built in this process
// (no server, no network): for the lint and the client generator. Which documents there are follows
// from the version table (one per version, plus `ops`).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import app from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { documentGroups } from '../../src/openapi/groups.ts'
import { serverOptions } from '../../src/server-options.ts'
import { buildVersionTable, type ApiVersionTable } from '../../src/versioning/versions.ts'

/** One served document: a version's (`v1`, `v2`, ...) or the version-neutral `ops`. */
export interface DocumentGroupInfo {
  name: string
  /** The API version the document describes; undefined for `ops`. */
  version: string | undefined
  deprecated: boolean
}

export interface ServedDocuments {
  /** The groups in the order of the version table, `ops` last. */
  groups: DocumentGroupInfo[]
  documents: Record<string, Record<string, unknown>>
}

// The default settings, so the documents (and the client made from them) do not depend on the
// environment; a key setting, so building the app writes no development key.
function documentsConfig (dataDir: string): Config {
  return loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_JWT_SECRET: 'documents-only-secret-0123456789abcdef' })
}

function groupsOf (table: ApiVersionTable): DocumentGroupInfo[] {
  return documentGroups(table).map(group => ({
    name: group.name,
    version: group.version?.version,
    deprecated: group.version?.deprecated === true
  }))
}

/** The document groups of the version table, under the default settings. */
export function tableGroups (): DocumentGroupInfo[] {
  return groupsOf(buildVersionTable(documentsConfig(tmpdir())))
}

export async function servedDocuments (): Promise<ServedDocuments> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-documents-'))
  const config = documentsConfig(dataDir)
  // No start-up deadline: a busy CI machine may take longer than a server would be allowed.
  const fastify = Fastify({ ...serverOptions(config), pluginTimeout: 0 })
  try {
    await fastify.register(fp(app), { config })
    await fastify.ready()
    const groups = groupsOf(fastify.apiVersions)
    const documents: Record<string, Record<string, unknown>> = {}
    for (const group of groups) documents[group.name] = fastify.openapiDocument(group.name)
    return { groups, documents }
  } finally {
    await fastify.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
