import type { FastifyInstance } from 'fastify'
import { strictBodyValidation } from '../../../src/http/strict-body.js'

// Every route here touches the database: until the instance first turns ready they answer 503
// `Starting`, and afterwards 503 at once while the database is unavailable (after authentication and
// validation, so a bad request is refused as such whatever the state). Their bodies are validated
// without type coercion.
export default async function databaseRequired (fastify: FastifyInstance): Promise<void> {
  strictBodyValidation(fastify)
  fastify.addHook('onRoute', route => { route.config = { ...route.config, database: true } })
  fastify.addHook('preHandler', fastify.untilServing)
  fastify.addHook('preHandler', async () => { fastify.storage.assertReady() })
}
