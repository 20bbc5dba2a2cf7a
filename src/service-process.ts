import Fastify, { type FastifyHttpsOptions, type FastifyInstance } from 'fastify'
import type { Server as HttpsServer } from 'node:https'
import fp from 'fastify-plugin'
import closeWithGrace from 'close-with-grace'
import { setTimeout as sleep } from 'node:timers/promises'
import app from './app.ts'
import { ConfigError, loadConfig, SETTING_NAMES, type Config } from './config.ts'
import { describeUnknown, unknownSettings } from './unknown-settings.ts'
import { logDestination, reportDroppedLines } from './logging/stdout-destination.ts'
import { serverOptions } from './server-options.ts'
import { tlsOptions } from './tls.ts'
import { flushTraces } from './tracing/shutdown.ts'
import { isDescriptorExhaustion } from './http/transport/descriptor-limit.ts'
import { listenFailure } from './http/transport/listen-failure.ts'
import { releaseStartupMemory } from './startup-memory.ts'

function readConfig (): { config: Config, https: ReturnType<typeof tlsOptions> } {
  try {
    const config = loadConfig()
    return { config, https: tlsOptions(config) }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

// Left of the shutdown bound after the span flush, for the last log line and the exit.
const FLUSH_MARGIN_MS = 250

/** After a start-up failure's one line: what was started (the embedded database) stops, and says nothing. */
async function closedQuietly (server: FastifyInstance): Promise<void> {
  server.log.level = 'silent'
  await server.close().catch(() => {})
}

async function start (): Promise<void> {
  const { config, https } = readConfig()
  // With TLS_CERT_FILE and TLS_KEY_FILE the service serves HTTPS itself (docs/api.md, "Transport").
  // The app is the same either way; only the listening server differs, so one instance type serves both.
  // The HTTPS server takes the same limits (header size, header timeout) beside the TLS options.
  const shared = serverOptions(config)
  const destination = logDestination()
  const options = { ...shared, logger: { ...(shared.logger as object), stream: destination } }
  const server = https === undefined
    ? Fastify(options)
    : Fastify({ ...options, https: { ...options.http, ...https } } as FastifyHttpsOptions<HttpsServer>) as unknown as FastifyInstance
  reportDroppedLines(destination, server.log)
  // Refused in production (see config.ts); said once elsewhere, and where ALLOW_UNKNOWN_SETTINGS lets them pass.
  const unknown = unknownSettings(process.env, SETTING_NAMES)
  if (unknown.length > 0) server.log.warn({ unknownSettings: unknown }, `unknown settings that look like this service's, ignored: ${describeUnknown(unknown)}`)
  try {
    await server.register(fp(app), { config })
    await server.ready()
  } catch (error) {
    // A setting that only a plugin can judge (a missing key, an unreadable file) stops start-up plainly.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      await closedQuietly(server)
      process.exit(1)
    }
    throw error
  }
  releaseStartupMemory()

  // Graceful shutdown: readiness turns NotReady at once; during the drain delay the server still answers,
  // so balancers polling readiness move traffic away; then it stops accepting, lets requests in flight
  // finish, closes dependencies and exits 0. Past the bound it exits 1.
  const drainMs = config.SHUTDOWN_DRAIN_DELAY_MS
  // An uncaught exception stops the service, except running out of file descriptors (below).
  let fatal: Error | undefined
  const shutdown = closeWithGrace({
    delay: drainMs + config.SHUTDOWN_TIMEOUT_MS,
    skip: ['uncaughtException'],
    logger: { error: (message: unknown) => server.log.error({ detail: message }, 'shutdown did not finish in time') }
  }, async ({ signal, err }) => {
    const deadline = Date.now() + drainMs + config.SHUTDOWN_TIMEOUT_MS
    const cause = err ?? fatal
    if (cause !== undefined) server.log.error({ err: cause }, 'shutting down after an unexpected error')
    else server.log.info({ signal, drainMs }, 'shutting down')
    server.health.beginShutdown()
    if (cause === undefined && drainMs > 0) await sleep(drainMs)
    await server.stopAccepting()
    await server.close()
    // Spans still buffered are sent within what is left of the shutdown bound.
    await flushTraces(deadline - Date.now() - FLUSH_MARGIN_MS)
    server.log.info('shut down')
    if (fatal !== undefined) process.exit(1)
  })
  // Out of file descriptors is ridden out, not a reason to stop: the connection cap refuses new
  // connections meanwhile, and what failed for it (a memory reading, a file) is tried again later.
  process.on('uncaughtException', error => {
    if (isDescriptorExhaustion(error)) {
      server.log.warn({ code: (error as NodeJS.ErrnoException).code, syscall: (error as NodeJS.ErrnoException).syscall }, 'out of file descriptors; going on')
      return
    }
    if (fatal !== undefined) process.exit(1)
    fatal = error
    shutdown.close()
  })

  try {
    await server.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    server.log.fatal({ code, host: config.HOST, port: config.PORT }, listenFailure(error, { host: config.HOST, port: config.PORT }, 'HOST, PORT'))
    await closedQuietly(server)
    process.exit(1)
  }
}

await start()
