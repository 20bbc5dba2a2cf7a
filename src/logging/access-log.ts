import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { traceLogFields } from '../tracing/request-span.ts'

/**
 * One access line per request, written when the answer is sent: method, URL, status and time
 * together, where Fastify writes an `incoming request` line and a `request completed` line; the line
 * at the end says all the first one did. Routes with a level above info (/ping, the probes) write
 * nothing unless something fails.
 */
export class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime, ...traceLogFields(request.traceContext) }
    if (error !== null && error !== undefined) reply.log.error({ ...fields, err: error }, 'request errored')
    else reply.log.info(fields, 'request completed')
  }
}
