import type { FastifyReply, FastifyRequest } from 'fastify'
import { httpStatusOf, type HealthStatus } from './status.ts'

/** The readiness result with its HTTP status: `/health/ready`, and `/health` on the management listener. */
export function readinessAnswer (health: { readiness: () => { status: HealthStatus } }) {
  return async (_request: FastifyRequest, reply: FastifyReply) => {
    const result = health.readiness()
    return await reply.code(httpStatusOf(result.status)).send(result)
  }
}
