import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import { serverOptions } from '../src/server-options.js'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface BuildOptions {
  /** Settings beyond the test defaults, by environment name. */
  env?: Record<string, string>
  /** Runs on the bare instance before the app is registered (e.g. an onRoute hook that sees every route). */
  beforeApp?: (app: FastifyInstance) => void
  /** Routes a test adds beside the service's own, registered after the app. */
  extraRoutes?: (app: FastifyInstance) => void
}

/** Settings for a test: the defaults, a quiet log, and what the test names. */
export function testConfig (env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env })
}

/** Builds the whole app with explicit settings and closes it when the test ends. */
export async function build (t: Teardown, options: BuildOptions = {}): Promise<FastifyInstance> {
  const config = testConfig(options.env)
  const fastify = Fastify(serverOptions(config))
  t.teardown(() => fastify.close())
  options.beforeApp?.(fastify)
  await fastify.register(fp(app), { config })
  if (options.extraRoutes !== undefined) await fastify.register(async scope => options.extraRoutes?.(scope))
  await fastify.ready()
  return fastify
}
