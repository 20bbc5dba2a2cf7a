import fp from 'fastify-plugin'
import { Server, ServerCredentials, type ServerWritableStream, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js'
import { HealthImplementation, type ServingStatus } from 'grpc-health-check'
import type { FastifyInstance } from 'fastify'
import type { HealthStatus } from '../src/health/status.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The gRPC health server's bound port, or null when GRPC_PORT is unset. */
    grpcHealthPort: number | null
  }
}

// The service names the gRPC health server knows: '' is the whole server (gRPC convention).
const SERVICE_NAMES = ['', 'recrutamento.Api']
const SHUTDOWN_GRACE_MS = 1000

/** Readiness mapped to gRPC serving status (spec 4.3 rule 7). */
export function servingStatusOf (status: HealthStatus): ServingStatus {
  if (status === 'Healthy' || status === 'Degraded') return 'SERVING'
  if (status === 'Unknown') return 'UNKNOWN'
  return 'NOT_SERVING'
}

/**
 * The server as HealthImplementation.addToServer sees it, with each Watch stream ended once its client
 * cancels it (or shutdown does): the call then completes, so its trace span closes and is exported.
 */
function endingWatchStreams (server: Server): Server {
  return {
    addService (service: ServiceDefinition, handlers: UntypedServiceImplementation) {
      const watch = handlers.watch as (call: ServerWritableStream<unknown, unknown>) => void
      server.addService(service, {
        ...handlers,
        watch (call: ServerWritableStream<unknown, unknown>) {
          call.once('cancelled', () => { call.end() })
          watch(call)
        }
      })
    }
  } as unknown as Server
}

/**
 * With GRPC_PORT set, a `grpc.health.v1.Health` server answers Check and streams Watch from readiness.
 * An unknown service name answers NOT_FOUND.
 */
async function grpcHealth (fastify: FastifyInstance): Promise<void> {
  const { GRPC_PORT: port, HOST: host } = fastify.config
  if (port === undefined) {
    fastify.decorate('grpcHealthPort', null)
    return
  }
  const log = fastify.log.child({ component: 'grpc-health' })
  const implementation = new HealthImplementation(Object.fromEntries(SERVICE_NAMES.map(name => [name, 'NOT_SERVING' as const])))
  const server = new Server()
  implementation.addToServer(endingWatchStreams(server))

  function publish (status: HealthStatus): void {
    const serving = servingStatusOf(status)
    for (const name of SERVICE_NAMES) implementation.setStatus(name, serving)
  }
  fastify.health.onReadinessChange(publish)

  const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, actualPort) => error === null ? resolve(actualPort) : reject(error))
  })
  fastify.decorate('grpcHealthPort', bound)
  log.info({ port: bound }, 'gRPC health server listening')

  fastify.addHook('onReady', async () => { publish(fastify.health.readiness().status) })
  fastify.addHook('onClose', async () => {
    // Watch streams never end by themselves: give unary calls a moment, then close everything.
    await new Promise<void>(resolve => {
      const timer = setTimeout(() => { server.forceShutdown(); resolve() }, SHUTDOWN_GRACE_MS)
      server.tryShutdown(() => { clearTimeout(timer); resolve() })
    })
  })
}

export default fp(grpcHealth, { name: 'grpc-health', fastify: '5.x', dependencies: ['config', 'health'] })
