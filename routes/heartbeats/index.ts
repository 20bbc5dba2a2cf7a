import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { problem } from '../../src/http/problems/error-catalogue.ts'
import { problemResponse } from '../../src/http/problems/problem-response.ts'
import { readDateTime } from '../../src/http/input/date-time.ts'

const HeartbeatMessage = Type.Object({
  service: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Name of the emitting service or worker' }),
  instanceId: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$', description: 'Identifier of the emitting instance' }),
  status: Type.Literal('alive'),
  timestamp: Type.String({ format: 'date-time', description: 'When it was sent: ISO 8601 date-time in UTC' }),
  intervalMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3600000, description: 'How often this instance beats; default HEARTBEAT_INTERVAL_MS' }))
}, { additionalProperties: false })

/** POST /heartbeats: workers announce they are alive; silence shows under the `workers` dependency. */
const heartbeats: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.post('/', {
    prefixTrailingSlash: 'no-slash',
    logLevel: 'warn',
    bodyLimit: 4096,
    config: { scopes: ['heartbeat:write'] },
    schema: {
      summary: 'Announce that a worker instance is alive',
      description: 'Pushed periodically by workers. An instance silent for longer than its interval times HEARTBEAT_TOLERANCE is reported Unhealthy under the `workers` dependency.',
      tags: ['health'],
      body: HeartbeatMessage,
      response: { 204: Type.Null({ description: 'Recorded' }), 400: problemResponse('TimestampInFuture') }
    }
  }, async (request, reply) => {
    const { service, instanceId, status, timestamp, intervalMs } = request.body
    const sentAt = readDateTime(timestamp)!.getTime()
    const now = Date.now()
    if (sentAt - now > config.HEARTBEAT_MAX_SKEW_MS) {
      throw problem('TimestampInFuture', { detail: `The timestamp is further in the future than the allowed clock skew of ${config.HEARTBEAT_MAX_SKEW_MS} ms.` })
    }
    await fastify.heartbeats.record({ service, instanceId, status, timestamp, receivedAt: now, intervalMs: intervalMs ?? config.HEARTBEAT_INTERVAL_MS })
    return reply.code(204).send(null)
  })
}

export default heartbeats
