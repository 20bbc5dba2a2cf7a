// The OpenAPI documents exactly as the service serves them, from an app built in this process
// (no server, no network): for the lint and the client generator.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import app from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { serverOptions } from '../../src/server-options.js'

export const GROUPS = ['v1', 'v2', 'ops'] as const
export type Group = typeof GROUPS[number]

export async function servedDocuments (): Promise<Record<Group, Record<string, unknown>>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-documents-'))
  // The default settings, so the documents (and the client made from them) do not depend on the
  // environment; a key setting, so building the app writes no development key.
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_JWT_SECRET: 'documents-only-secret-0123456789abcdef' })
  // No start-up deadline: a busy CI machine may take longer than a server would be allowed.
  const fastify = Fastify({ ...serverOptions(config), pluginTimeout: 0 })
  try {
    await fastify.register(fp(app), { config })
    await fastify.ready()
    const documents = {} as Record<Group, Record<string, unknown>>
    for (const group of GROUPS) documents[group] = fastify.openapiDocument(group)
    return documents
  } finally {
    await fastify.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
