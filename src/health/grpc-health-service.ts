import { status as GrpcStatus, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js'
import type { HealthStatus } from './status.ts'

export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN'

interface HealthRequest { service: string }
interface HealthResponse { status: ServingStatus | 'SERVICE_UNKNOWN' }

// The service names this server answers for: '' is the whole server (gRPC convention).
const SERVICE_NAMES: ReadonlySet<string> = new Set(['', 'recrutamento.Api'])

/** Readiness mapped to gRPC serving status. */
export function servingStatusOf (status: HealthStatus): ServingStatus {
  if (status === 'Healthy' || status === 'Degraded') return 'SERVING'
  if (status === 'Unknown') return 'UNKNOWN'
  return 'NOT_SERVING'
}

/**
 * `grpc.health.v1.Health` over one serving status shared by every name served. Nothing is kept per
 * name a client sends: an unknown name answers NOT_FOUND (Check) or SERVICE_UNKNOWN and the end of
 * the stream (Watch), and open Watch streams are bounded in number.
 */
export function createGrpcHealthService (maxWatches: number) {
  let current: ServingStatus = 'NOT_SERVING'
  const watches = new Set<ServerWritableStream<HealthRequest, HealthResponse>>()

  const handlers: UntypedServiceImplementation = {
    check (call: ServerUnaryCall<HealthRequest, HealthResponse>, callback: sendUnaryData<HealthResponse>) {
      // The name is not echoed: it is the client's, of any size up to the message limit.
      if (SERVICE_NAMES.has(call.request.service)) callback(null, { status: current })
      else callback({ code: GrpcStatus.NOT_FOUND, details: 'unknown service name' })
    },
    watch (call: ServerWritableStream<HealthRequest, HealthResponse>) {
      if (!SERVICE_NAMES.has(call.request.service)) {
        call.write({ status: 'SERVICE_UNKNOWN' })
        call.end()
        return
      }
      if (watches.size >= maxWatches) {
        call.emit('error', { code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'too many Watch streams are open; poll Check instead' })
        return
      }
      watches.add(call)
      // Ended when its client cancels it (or shutdown does): the call completes, its trace span closes.
      call.once('cancelled', () => { watches.delete(call); call.end() })
      call.write({ status: current })
    },
    list (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<{ statuses: Record<string, HealthResponse> }>) {
      callback(null, { statuses: Object.fromEntries([...SERVICE_NAMES].map(name => [name, { status: current }])) })
    }
  }

  return {
    handlers,
    /** Sets the serving status; every open Watch stream hears of a change. */
    publish (status: HealthStatus): void {
      const serving = servingStatusOf(status)
      if (serving === current) return
      current = serving
      for (const call of watches) call.write({ status: serving })
    },
    /** The Watch streams open now. */
    openWatches: () => watches.size
  }
}
