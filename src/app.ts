import AutoLoad from '@fastify/autoload'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Config } from './config.js'
import type { ApiVersionRow } from './versioning/versions.js'

export interface AppOptions {
  config: Config
  /**
   * The API version table, when not the service's own (API_VERSION_ROWS): a build that serves an extra
   * version. The server's router must be given the same rows (serverOptions).
   */
  versionRows?: readonly ApiVersionRow[]
}

/** The whole service as one plugin: shared plugins first, then the routes that use them. */
export default async function app (fastify: FastifyInstance, opts: AppOptions): Promise<void> {
  await fastify.register(AutoLoad, {
    dir: join(import.meta.dirname, '../plugins'),
    options: { ...opts }
  })
  await fastify.register(AutoLoad, {
    dir: join(import.meta.dirname, '../routes'),
    autoHooks: true,
    cascadeHooks: true
  })
}
