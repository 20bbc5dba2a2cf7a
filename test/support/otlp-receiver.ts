import type { IncomingHttpHeaders } from 'node:http'
import { localServer } from '../local-server.ts'

/** One span as an OTLP/HTTP JSON export request carries it, with its resource's service name. */
export interface ReceivedSpan {
  serviceName: unknown
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  /** OTLP span kind: 2 server, 3 client. */
  kind: number
  attributes: Record<string, unknown>
}

interface KeyValue { key: string, value: Record<string, unknown> }
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] }
    scopeSpans?: Array<{ spans?: Array<Omit<ReceivedSpan, 'attributes' | 'serviceName'> & { attributes?: KeyValue[] }> }>
  }>
}

function attributesOf (list: KeyValue[] = []): Record<string, unknown> {
  // An OTLP AnyValue holds one of stringValue, intValue, boolValue, doubleValue, ...
  return Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]))
}

/**
 * A stand-in OpenTelemetry collector on loopback: it accepts OTLP/HTTP JSON export requests at
 * /v1/traces and decodes the spans. Any other path is answered 204 and its headers remembered (the
 * service's heartbeats are sent here too).
 */
export async function otlpReceiver (t: { teardown: (fn: () => unknown) => void }) {
  const spans: ReceivedSpan[] = []
  const otherRequests: Array<{ url?: string, headers: IncomingHttpHeaders }> = []
  const server = await localServer(t, (req, body, res) => {
    if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json') {
      const request = JSON.parse(body) as ExportRequest
      for (const resourceSpans of request.resourceSpans ?? []) {
        const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name']
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ ...span, serviceName, attributes: attributesOf(span.attributes) })
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      return
    }
    otherRequests.push({ url: req.url, headers: req.headers })
    res.writeHead(204).end()
  })
  return { url: server.url, spans, otherRequests }
}
