import type { Redis } from 'ioredis'

/**
 * While the instance boots, its event loop is held for long stretches (modules loading, route schemas
 * compiling). A Redis answer that arrived meanwhile is read only after the timers have run, so a short
 * command or socket timeout takes a healthy Redis for a hung one: the connection is dropped and an
 * outage reported on every start. Until the instance first turns ready, a client waits as long as it
 * waits to connect; from then on, `timeoutMs`. ioredis reads both timeouts at each command.
 */
export function tightenOnceServing (client: Redis, serving: Promise<void>, timeoutMs: number): void {
  serving.then(() => {
    client.options.commandTimeout = timeoutMs
    client.options.socketTimeout = timeoutMs
  }, () => {})
}

/** The timeouts a client is created with: at least the connect timeout, for the boot. */
export function bootTimeouts (connectTimeoutMs: number, timeoutMs: number): { commandTimeout: number, socketTimeout: number } {
  const bootMs = Math.max(connectTimeoutMs, timeoutMs)
  return { commandTimeout: bootMs, socketTimeout: bootMs }
}
