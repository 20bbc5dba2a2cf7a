import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ConfigError } from '../src/config.ts'
import { listenFailure } from '../src/http/transport/listen-failure.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The gRPC health server's bound port, or null when GRPC_PORT is unset. */
    grpcHealthPort: number | null
  }
}

const SHUTDOWN_GRACE_MS = 1000
// A health request carries one service name, and the names served are short: a larger message is
// refused (RESOURCE_EXHAUSTED) before it is decoded.
const MAX_REQUEST_BYTES = 1024

/**
 * With GRPC_PORT set, a `grpc.health.v1.Health` server answers Check and streams Watch from readiness.
 * An unknown service name answers NOT_FOUND.
 */
async function grpcHealth (fastify: FastifyInstance): Promise<void> {
  const { GRPC_PORT: port, HOST: host, GRPC_MAX_CONCURRENT_STREAMS: maxStreams, GRPC_MAX_WATCHES: maxWatches } = fastify.config
  if (port === undefined) {
    fastify.decorate('grpcHealthPort', null)
    return
  }
  // gRPC (its server, protobuf, the health service definition) is loaded only when it is served:
  // a service without GRPC_PORT never has it in memory.
  const [{ logVerbosity, Server, ServerCredentials, setLogVerbosity }, { service: healthServiceDefinition }, { createGrpcHealthService }] = await Promise.all([
    import('@grpc/grpc-js'), import('grpc-health-check'), import('../src/health/grpc-health-service.ts')
  ])
  const log = fastify.log.child({ component: 'grpc-health' })
  const health = createGrpcHealthService(maxWatches)
  const server = new Server({ 'grpc.max_concurrent_streams': maxStreams, 'grpc.max_receive_message_length': MAX_REQUEST_BYTES })
  server.addService(healthServiceDefinition, health.handlers)
  fastify.health.onReadinessChange(health.publish)

  const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
  // grpc-js writes its own lines to stderr (a failed bind among them); the failure is said below, once.
  setLogVerbosity(logVerbosity.NONE)
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, actualPort) => {
      if (error === null) resolve(actualPort)
      else reject(new ConfigError(listenFailure(error, { host, port }, 'HOST, GRPC_PORT')))
    })
  })
  fastify.decorate('grpcHealthPort', bound)
  log.info({ port: bound }, 'gRPC health server listening')

  fastify.addHook('onReady', async () => { health.publish(fastify.health.readiness().status) })
  fastify.addHook('onClose', async () => {
    // Watch streams never end by themselves: give unary calls a moment, then close everything.
    await new Promise<void>(resolve => {
      const timer = setTimeout(() => { server.forceShutdown(); resolve() }, SHUTDOWN_GRACE_MS)
      server.tryShutdown(() => { clearTimeout(timer); resolve() })
    })
  })
}

export default fp(grpcHealth, { name: 'grpc-health', fastify: '5.x', dependencies: ['config', 'health'] })
