import AutoLoad from '@fastify/autoload'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { skipsPlugin, skipsRoute } from './roles.ts'
import type { EmbeddedDatabaseStarter } from './storage/embedded-database.ts'
import type { ApiVersionRow } from './versioning/versions.ts'

export interface AppOptions {
  config: Config
  /**
   * The API version table, when not the service's own (API_VERSION_ROWS): a build that serves an extra
   * version. The server's router must be given the same rows (serverOptions).
   */
  versionRows?: readonly ApiVersionRow[]
  /**
   * How the embedded database is started when there is no DATABASE_URL: in a process of its own under
   * DATA_DIR unless an embedder gives another way (one server shared by many apps of one process).
   */
  startEmbeddedDatabase?: EmbeddedDatabaseStarter
}

/**
 * The whole service as one plugin: shared plugins first, then the routes that use them; those its
 * role (SERVICE_ROLE, src/roles.ts) runs.
 */
export default async function app (fastify: FastifyInstance, opts: AppOptions): Promise<void> {
  const role = opts.config.SERVICE_ROLE
  await fastify.register(AutoLoad, {
    dir: join(import.meta.dirname, '../plugins'),
    ignoreFilter: skipsPlugin(role),
    options: { ...opts }
  })
  await fastify.register(AutoLoad, {
    dir: join(import.meta.dirname, '../routes'),
    ignoreFilter: skipsRoute(role),
    autoHooks: true,
    cascadeHooks: true
  })
}
