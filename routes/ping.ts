import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

/** GET /ping: proves the process answers HTTP and nothing more. */
const ping: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/ping', {
    // Polled by gateways every few seconds: a probe (no access log line, no request histogram, and it
    // keeps answering while the service sheds load).
    config: { public: true, probe: true },
    schema: {
      summary: 'Connectivity test',
      description: 'Answers the plain text `pong`. It touches no dependency and proves nothing beyond reachability.',
      tags: ['ops'],
      response: { 200: { description: 'The service is reachable', content: { 'text/plain': { schema: Type.Literal('pong') } } } }
    }
    // A string answer goes out as text/plain; charset=utf-8 without further work.
  }, async () => 'pong' as const)
}

export default ping
