import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { answeredEarly, drainRestOfBody } from '../src/http/transport/early-answer.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'

// Methods whose requests carry a body: the only ones a client may still be sending when answered.
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function drainAfterEarlyAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (answeredEarly(request.raw)) {
    // Fastify asks to close after a body it stopped reading; it is read to its end instead. A close
    // asked for by the client or by shutdown is on the raw response, and stays.
    reply.removeHeader('connection')
    drainRestOfBody(request.raw)
  }
  done(null, payload)
}

/**
 * An answer sent before the request's body was read (413, 401, 415, ...) reaches the client: the body
 * still coming is read and dropped within bounds (src/http/transport/early-answer.ts) rather than reset. Only
 * on the routes that take a body: probes and reads run none of it.
 */
async function earlyAnswer (fastify: FastifyInstance): Promise<void> {
  fastify.routeSteps.add('early-answer', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.some(method => WITH_BODY.has(method))) addRouteHook(route, 'onSend', drainAfterEarlyAnswer)
  })
}

export default fp(earlyAnswer, { name: 'early-answer', fastify: '5.x', dependencies: ['route-hooks'] })
