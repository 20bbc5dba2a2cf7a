import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AppOptions } from '../src/app.ts'
import type { Config } from '../src/config.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Readonly<Config>
  }
}

/** Exposes the validated settings to every plugin and route, so none of them reads process.env. */
async function configPlugin (fastify: FastifyInstance, opts: AppOptions): Promise<void> {
  fastify.decorate('config', Object.freeze({ ...opts.config }))
}

export default fp(configPlugin, { name: 'config', fastify: '5.x' })
