// Loaded before the server (`node --import`, or first by scripts/start.js) so that the SDK patches
// pg, ioredis and @grpc/grpc-js before the service imports them. With tracing off it loads nothing.
import { register } from 'node:module'
import { tracingWanted } from './settings.js'

if (tracingWanted(process.env)) {
  const { INSTRUMENTED_MODULES, startTracing } = await import('./sdk.js')
  // ESM imports are patched through import-in-the-middle's loader hook, limited to the instrumented modules.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: INSTRUMENTED_MODULES } })
  startTracing()
}
