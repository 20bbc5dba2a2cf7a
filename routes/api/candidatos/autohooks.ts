import type { FastifyInstance } from 'fastify'
import { setRoutePolicyDefaults } from '../../../src/http/policy/route-policy.ts'
import { strictBodyValidation } from '../../../src/http/input/strict-body.ts'

// Every route here touches the database (see `database` in src/http/policy/route-policy.ts), and its
// body is validated without type coercion.
export default async function databaseRequired (fastify: FastifyInstance): Promise<void> {
  setRoutePolicyDefaults(fastify, { database: true })
  strictBodyValidation(fastify)
}
