import { tracing } from '@opentelemetry/sdk-node'

/**
 * Finished spans kept in memory. `finished()` first waits for the exports the processor still
 * holds: it exports a span only once its resource's asynchronous attributes (host, process) are
 * detected, which on a busy machine comes after the traced call has answered.
 */
export function spanRecorder () {
  const exporter = new tracing.InMemorySpanExporter()
  const processor = new tracing.SimpleSpanProcessor(exporter)
  return {
    processor,
    finished: async () => {
      await processor.forceFlush()
      return exporter.getFinishedSpans()
    },
    reset: () => { exporter.reset() }
  }
}
