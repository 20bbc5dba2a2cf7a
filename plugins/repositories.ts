import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createRepositories, type Repositories } from '../src/storage/repositories.ts'

declare module 'fastify' {
  interface FastifyInstance {
    repositories: Repositories
  }
}

const PURGE_EVERY_MS = 60 * 60 * 1000

/** The recruitment repositories over the service's database, and the hourly purge of old Idempotency-Keys, events and webhook attempts. */
async function repositoriesPlugin (fastify: FastifyInstance): Promise<void> {
  const repositories = createRepositories(fastify.storage.db, { eventRetentionHours: fastify.config.EVENT_RETENTION_HOURS })
  fastify.decorate('repositories', repositories)

  const purges = [
    { component: 'idempotency', run: repositories.purgeExpiredIdempotencyKeys, what: 'expired idempotency keys' },
    { component: 'events', run: repositories.eventos.purgeExpired, what: 'events older than EVENT_RETENTION_HOURS' },
    { component: 'webhooks', run: repositories.webhookDeliveries.purgeExpiredAttempts, what: 'webhook attempts older than EVENT_RETENTION_HOURS' }
  ]
  const timers = purges.map(({ component, run, what }) => {
    const log = fastify.log.child({ component })
    const timer = setInterval(() => {
      if (fastify.storage.state() !== 'ready') return
      run().then(
        purged => { if (purged > 0) log.info({ purged }, `${what} removed`) },
        error => log.warn({ err: error }, `could not remove ${what}`)
      )
    }, PURGE_EVERY_MS)
    timer.unref()
    return timer
  })
  fastify.addHook('onClose', async () => { for (const timer of timers) clearInterval(timer) })
}

export default fp(repositoriesPlugin, { name: 'repositories', fastify: '5.x', dependencies: ['storage'] })
