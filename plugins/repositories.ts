import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createRepositories, type Repositories } from '../src/storage/repositories.js'

declare module 'fastify' {
  interface FastifyInstance {
    repositories: Repositories
  }
}

const PURGE_EVERY_MS = 60 * 60 * 1000

/** The recruitment repositories over the service's database, and the hourly purge of old Idempotency-Keys. */
async function repositoriesPlugin (fastify: FastifyInstance): Promise<void> {
  const repositories = createRepositories(fastify.storage.db)
  fastify.decorate('repositories', repositories)

  const log = fastify.log.child({ component: 'idempotency' })
  const purge = setInterval(() => {
    if (fastify.storage.state() !== 'ready') return
    repositories.purgeExpiredIdempotencyKeys().then(
      purged => { if (purged > 0) log.info({ purged }, 'expired idempotency keys removed') },
      error => log.warn({ err: error }, 'could not remove expired idempotency keys')
    )
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}

export default fp(repositoriesPlugin, { name: 'repositories', fastify: '5.x', dependencies: ['storage'] })
