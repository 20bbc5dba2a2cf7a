import type { FastifyInstance } from 'fastify'
import { setRoutePolicyDefaults } from '../../../src/http/route-policy.js'

// Every route here touches the database (see `database` in src/http/route-policy.ts).
export default async function databaseRequired (fastify: FastifyInstance): Promise<void> {
  setRoutePolicyDefaults(fastify, { database: true })
}
