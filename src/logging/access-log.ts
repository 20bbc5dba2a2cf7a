import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import pino from 'pino'
import { deferredParts, type ParentLogger } from './request-logger.js'
import { serializeRequest } from './request-serializer.js'
import { traceLogFields } from '../tracing/request-span.js'

const symbols = pino.symbols

/** The parts of a pino logger's settings that shape its lines (pino exports these keys for this use). */
interface PinoInternals {
  levels: { values: Record<string, number> }
  [symbols.chindingsSym]: string
  [symbols.endSym]: string
  [symbols.lsCacheSym]: Record<number, string>
  [symbols.messageKeySym]: string
  [symbols.streamSym]: { write: (line: string) => unknown }
  [symbols.timeSym]: () => string
}

/** What every access line of one parent logger shares, read once from pino's settings. */
interface LineParts {
  head: string
  time: () => string
  chindings: string
  tail: string
  stream: { write: (line: string) => unknown }
}

// Read once per logger: looking up pino's symbol-keyed settings on every line cost more than the line.
// (A logger's bindings could change through `setBindings`, which this service never calls.)
const partsByLogger = new WeakMap<ParentLogger, LineParts>()

function linePartsOf (parent: ParentLogger): LineParts {
  let parts = partsByLogger.get(parent)
  if (parts === undefined) {
    const pinoLogger = parent as unknown as PinoInternals
    parts = {
      head: pinoLogger[symbols.lsCacheSym][pinoLogger.levels.values.info as number] as string,
      time: pinoLogger[symbols.timeSym],
      chindings: pinoLogger[symbols.chindingsSym],
      tail: ',"' + pinoLogger[symbols.messageKeySym] + '":"request completed"' + pinoLogger[symbols.endSym],
      stream: pinoLogger[symbols.streamSym]
    }
    partsByLogger.set(parent, parts)
  }
  return parts
}

/**
 * The line `logger.info({ req, res, responseTime }, 'request completed')` writes, built directly: the
 * same fields in the same order, through the same stream. pino would first make the request's child
 * logger and then walk the object generically, a large share of a read's cost (docs/benchmarks.md, "Costs behind the code").
 */
function writeCompletedLine (parent: ParentLogger, bindings: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): void {
  const parts = linePartsOf(parent)
  const requestBindings = JSON.stringify(bindings)
  const trace = request.traceContext
  parts.stream.write(
    parts.head + parts.time() + parts.chindings +
    (requestBindings.length > 2 ? ',' + requestBindings.slice(1, -1) : '') +
    (trace == null ? '' : ',"trace_id":"' + trace.traceId + '","span_id":"' + trace.spanId + '"') +
    ',"req":' + JSON.stringify(serializeRequest(request)) +
    ',"res":{"statusCode":' + reply.statusCode + '},"responseTime":' + reply.elapsedTime + parts.tail
  )
}

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
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime, ...traceLogFields(request.traceContext) }, 'request errored')
      return
    }
    const deferred = deferredParts(reply.log)
    if (deferred === undefined) {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime, ...traceLogFields(request.traceContext) }, 'request completed')
    } else if (deferred.parent.isLevelEnabled('info')) {
      writeCompletedLine(deferred.parent, deferred.bindings, request, reply)
    }
  }
}
