import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

/** GET /metrics: Prometheus text, on the service's port for scrapers holding `metrics:read`, and on the management listener. */
export const metricsRoute: FastifyPluginAsyncTypebox = async (fastify) => {
  const registry = fastify.metricsRegistry

  fastify.get('/metrics', {
    logLevel: 'warn',
    // Scrapes are not traffic: no request histogram entry, and they still answer while load is shed.
    config: { scopes: ['metrics:read'], shed: false, metrics: false },
    schema: {
      summary: 'Metrics in the Prometheus text format',
      description: 'Request durations by route pattern, method and status; health check status and latency; process and event-loop metrics.',
      tags: ['ops'],
      response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: Type.String() } } } }
    }
  }, async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics())
  })
}
