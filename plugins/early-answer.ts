import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { answeredEarly, drainRestOfBody } from '../src/http/early-answer.js'

/**
 * An answer sent before the request's body was read (413, 401, 415, ...) reaches the client: the body
 * still coming is read and dropped within bounds (src/http/early-answer.ts) rather than reset.
 */
async function earlyAnswer (fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onSend', function drainAfterEarlyAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) {
    if (answeredEarly(request.raw)) {
      // Fastify asks to close after a body it stopped reading; it is read to its end instead. A close
      // asked for by the client or by shutdown is on the raw response, and stays.
      reply.removeHeader('connection')
      drainRestOfBody(request.raw)
    }
    done(null, payload)
  })
}

export default fp(earlyAnswer, { name: 'early-answer', fastify: '5.x' })
