import type { FastifyInstance } from 'fastify'

// Every route here touches the database: while it is unavailable they answer 503 at once.
export default async function databaseRequired (fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRoute', route => { route.config = { ...route.config, database: true } })
  fastify.addHook('preHandler', async () => { fastify.storage.assertReady() })
}
