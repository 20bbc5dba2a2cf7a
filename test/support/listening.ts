import type { FastifyInstance } from 'fastify'

/** Starts `app` listening on a free loopback port; the port. */
export async function listening (app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}
