import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { healthRouteSchema } from './route-schema.ts'
import { PROBE_ROUTE, StatusOnly, StatusWithChecks } from './schemas.ts'
import { readinessAnswer } from './readiness-answer.ts'
import { httpStatusOf } from './status.ts'

/**
 * The public probes: they read results the background refresh keeps, and touch no dependency. Served
 * under `/health` on the service's port and on the management listener.
 */
export const probeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { health } = fastify

  fastify.get('/live', {
    ...PROBE_ROUTE,
    schema: healthRouteSchema({
      summary: 'Liveness: is the process alive or stuck?',
      description: 'The process alone (its event loop answers in time). It never depends on a database, cache or other service.'
    }, StatusWithChecks)
  }, async (_request, reply) => {
    const { status, checks } = health.liveness()
    return reply.code(httpStatusOf(status)).send({ status, checks })
  })

  fastify.get('/ready', {
    ...PROBE_ROUTE,
    schema: healthRouteSchema({
      summary: 'Readiness: can this instance take production traffic now?',
      description: 'Database, migrations, configuration and (when configured) cache, from results refreshed in the background. `NotReady` while starting and from the first moment of shutdown.'
    }, StatusWithChecks)
  }, readinessAnswer(health))

  fastify.get('/startup', {
    ...PROBE_ROUTE,
    schema: healthRouteSchema({
      summary: 'Startup: has boot finished?',
      description: '`Starting` during boot only (settings read, plugins loaded, listening), then `Healthy` for good. A dependency that is down keeps readiness 503, never startup.'
    }, StatusOnly)
  }, async (_request, reply) => {
    const status = health.startup()
    return reply.code(httpStatusOf(status)).send({ status })
  })

  fastify.get('/shallow', {
    ...PROBE_ROUTE,
    schema: {
      summary: 'Cheap check that the application answers',
      description: 'Touches nothing: if this answers, the HTTP stack works.',
      tags: ['health'],
      response: { 200: StatusOnly }
    }
  }, async () => ({ status: 'Healthy' as const }))
}
