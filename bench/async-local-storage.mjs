// Preload of the `read-async-local-storage` scenario: an untraced process that only enables an
// AsyncLocalStorage, as OpenTelemetry's context manager does, to measure what its hook costs alone.
import { AsyncLocalStorage } from 'node:async_hooks'

const storage = new AsyncLocalStorage()
storage.enterWith({})
