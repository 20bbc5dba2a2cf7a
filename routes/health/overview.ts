import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { healthRouteSchema } from '../../src/health/route-schema.ts'
import { PROBE_ROUTE, StatusWithChecks } from '../../src/health/schemas.ts'
import { httpStatusOf } from '../../src/health/status.ts'

/** GET /health: the general state; public callers see the status, `health:read` also sees the checks. */
const overview: FastifyPluginAsyncTypebox = async (fastify) => {
  const { health } = fastify
  const Result = Type.Union([Type.Pick(StatusWithChecks, ['status']), StatusWithChecks])

  fastify.get('/', {
    ...PROBE_ROUTE,
    prefixTrailingSlash: 'no-slash',
    // A token may need its issuer's keys fetched: this route keeps the handler timer.
    config: { ...PROBE_ROUTE.config, handlerTimer: true, auth: 'optional' },
    schema: healthRouteSchema({
      summary: 'General state of the service',
      description: 'The readiness result. Without a token only `status`; with a token carrying `health:read`, also `checks`.'
    }, Result)
  }, async (request, reply) => {
    const result = health.readiness()
    const mayReadDetails = request.principal?.scopes.has('health:read') === true
    return reply.code(httpStatusOf(result.status)).send(mayReadDetails ? result : { status: result.status })
  })
}

export default overview
