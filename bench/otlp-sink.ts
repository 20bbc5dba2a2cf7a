// A stand-in OpenTelemetry collector for the tracing scenarios: it accepts OTLP/HTTP export requests
// on loopback and discards them, answering as a collector does, so the service's exporter does its
// real work (batching, encoding, sending) without a collector's cost on the measured cores.
import { createServer } from 'node:http'
import { once } from 'node:events'

/** In a scenario's settings, replaced by the URL of the sink the run starts. */
export const OTLP_SINK = '{otlp-sink}'

export async function startOtlpSink (): Promise<{ url: string, close: () => Promise<void>, received: () => { requests: number, bytes: number } }> {
  let requests = 0
  let bytes = 0
  const server = createServer((req, res) => {
    requests++
    req.on('data', (chunk: Buffer) => { bytes += chunk.length })
    // An empty ExportTraceServiceResponse: everything accepted.
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('the OTLP sink has no port')
  return {
    url: `http://127.0.0.1:${address.port}`,
    received: () => ({ requests, bytes }),
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
}
