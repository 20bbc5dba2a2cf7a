import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import { isLoopback } from '../src/auth/transport.ts'
import { buildInfo } from '../src/build-info.ts'
import { ConfigError } from '../src/config.ts'
import { healthDetailRoutes } from '../src/health/detail-routes.ts'
import { probeRoutes } from '../src/health/probe-routes.ts'
import { healthRouteSchema } from '../src/health/route-schema.ts'
import { StatusWithChecks } from '../src/health/schemas.ts'
import { readinessAnswer } from '../src/health/readiness-answer.ts'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { metricsRoute } from '../src/metrics/metrics-route.ts'
import { guardConnections } from '../src/http/transport/connection-guard.ts'
import { listenFailure } from '../src/http/transport/listen-failure.ts'
import { serverOptions } from '../src/server-options.ts'
import configPlugin from './config.ts'
import problemDetails from './problem-details.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The management listener's own app, or null when MANAGEMENT_PORT is unset. */
    management: FastifyInstance | null
  }
}

const BuildInfoSchema = Type.Object({
  version: Type.String({ description: 'The service version' }),
  commit: Type.String({ description: 'The source commit it was built from, or `unknown`' }),
  startedAt: Type.String({ format: 'date-time', description: 'When this process started' }),
  runtime: Type.Object({ name: Type.Literal('node'), version: Type.String() })
}, { additionalProperties: false })

/** What only the management listener serves: `/info`, and `/health` with every check. */
const managementOnly: FastifyPluginAsync = async (management) => {
  const { health } = management
  management.get('/info', { schema: { response: { 200: BuildInfoSchema } } }, async () => buildInfo)
  management.get('/health', {
    schema: healthRouteSchema({ summary: 'Readiness with every check', description: 'The readiness result.' }, StatusWithChecks)
  }, readinessAnswer(health))
}

/**
 * With MANAGEMENT_PORT set, a second listener on MANAGEMENT_HOST serves what operators' tools read,
 * without a token: `/metrics`, the health endpoints (the details included) and `/info`. It is a
 * separate app with those routes only, so no business route is reachable through it whatever a
 * request says. The routes are the service's own (src/health, src/metrics): the scopes they declare go unchecked here,
 * because this app has no access control at all; it belongs on a private network.
 */
async function managementListener (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  if (config.MANAGEMENT_PORT === undefined) {
    fastify.decorate('management', null)
    return
  }
  // The service's connection limits and timeouts; nothing of its routing, versioning or access log.
  const { http, requestTimeout, keepAliveTimeout, connectionTimeout, clientErrorHandler, genReqId, requestIdHeader } = serverOptions(config)
  const limits = { http, requestTimeout, keepAliveTimeout, connectionTimeout, clientErrorHandler, genReqId, requestIdHeader }
  const management = Fastify({ ...limits, loggerInstance: fastify.log.child({ listener: 'management' }), bodyLimit: 1024 }) as unknown as FastifyInstance
  // Its share of the service's connection budget, and the same close for silent connections: a
  // flood here never takes the descriptors the service's port needs, nor the other way round.
  guardConnections(management.server, { maxConnections: fastify.connectionCaps.management, silentForMs: config.NEW_CONNECTION_TIMEOUT })
  management.decorate('health', fastify.health)
  management.decorate('metricsRegistry', fastify.metricsRegistry)
  await management.register(configPlugin, { config })
  await management.register(problemDetails)
  management.addHook('onSend', function noStore (_request, reply, payload, done) {
    reply.header('cache-control', 'no-store')
    done(null, payload)
  })
  management.setNotFoundHandler(async (_request, reply) => reply.sendProblem(problem('NotFound')))
  // Scrapes and polls are not news: errors are still logged.
  await management.register(async scope => {
    await scope.register(metricsRoute)
    await scope.register(managementOnly)
    await scope.register(probeRoutes, { prefix: '/health' })
    await scope.register(healthDetailRoutes, { prefix: '/health' })
  }, { logLevel: 'warn' })
  fastify.decorate('management', management)

  // Listening once the service is ready to be read; closed last, so it answers through the drain.
  fastify.addHook('onReady', async () => {
    const address = { host: config.MANAGEMENT_HOST, port: config.MANAGEMENT_PORT! }
    try {
      // Not "Server listening at": that line names the service's own port, for people and scripts.
      await management.listen({ ...address, listenTextResolver: url => `management listener at ${url}` })
    } catch (error) {
      throw new ConfigError(listenFailure(error, address, 'MANAGEMENT_HOST, MANAGEMENT_PORT'))
    }
    // Reachable from beyond this machine, it hands anyone there what a token guards on the service's port.
    const exposed = management.addresses().flatMap(bound => typeof bound === 'string' || isLoopback(bound.address) ? [] : [bound.address])
    if (exposed.length > 0) {
      fastify.log.warn({ managementHost: config.MANAGEMENT_HOST, addresses: exposed }, 'the management listener is bound beyond loopback: it serves health details and metrics without a token')
    }
  })
  fastify.addHook('onClose', async () => { await management.close() })
}

export default fp(managementListener, { name: 'management', fastify: '5.x', dependencies: ['config', 'connection-limits', 'health', 'metrics'] })
