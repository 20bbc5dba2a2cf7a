import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * One access line per request, written when the answer is sent: method, URL, status and time
 * together, where Fastify writes an `incoming request` line and a `request completed` line. Logging is
 * a good part of a read's cost, and the line at the end says all the first one did. Routes with a
 * level above info (/ping, the probes) still write nothing unless something fails.
 */
export class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    if (error !== null && error !== undefined) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
    }
  }
}
