// Loaded before the server (`node --import`, or first by scripts/start.js) so that the SDK patches
// pg, ioredis and @grpc/grpc-js before the service imports them. With tracing off it loads nothing.
import { tracingWanted } from './settings.ts'

if (tracingWanted(process.env)) {
  const { interceptInstrumentedModules, startTracing } = await import('./sdk.ts')
  interceptInstrumentedModules()
  startTracing()
}
