import type { FastifyInstance } from 'fastify'
import { setRoutePolicyDefaults } from '../../../src/http/policy/route-policy.ts'
import { strictBodyValidation } from '../../../src/http/input/strict-body.ts'

// Subscriptions name where the service sends data and hold signing secrets: every route here needs
// webhooks:write, even to read, and touches the database.
export default async function webhookRoutes (fastify: FastifyInstance): Promise<void> {
  setRoutePolicyDefaults(fastify, { database: true, scopes: ['webhooks:write'] })
  strictBodyValidation(fastify)
}
