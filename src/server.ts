import Fastify from 'fastify'
import fp from 'fastify-plugin'
import closeWithGrace from 'close-with-grace'
import app from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { serverOptions } from './server-options.js'

function readConfig (): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

async function start (): Promise<void> {
  const config = readConfig()
  const server = Fastify(serverOptions(config))
  try {
    await server.register(fp(app), { config })
    await server.ready()
  } catch (error) {
    // A setting that only a plugin can judge (a missing key, an unreadable file) stops start-up plainly.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
    throw error
  }

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) server.log.error({ err }, 'shutting down after an unexpected error')
    else server.log.info({ signal }, 'shutting down')
    await server.close()
  })

  try {
    await server.listen({ port: config.PORT, host: config.HOST })
  } catch (err) {
    server.log.error({ err }, 'could not start listening')
    process.exit(1)
  }
}

await start()
