import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { problem } from '../src/http/error-catalogue.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** A hook: 503 `Starting` until readiness has been Healthy once. */
    untilServing: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void
  }
}

/**
 * Business routes take work only once readiness has been Healthy: before that (booting, opening the
 * database, database unreachable since start) they answer 503 `Starting` with Retry-After, never
 * `Overloaded` (nothing is shed before then). The routes that need the database add it as a hook.
 */
async function startingGate (fastify: FastifyInstance): Promise<void> {
  const { lifecycle } = fastify.health
  const starting = problem('Starting')
  fastify.decorate('untilServing', function untilServing (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (lifecycle.entered('serving')) return done()
    reply.sendProblem(starting)
  })
}

export default fp(startingGate, { name: 'starting-gate', fastify: '5.x', dependencies: ['health', 'problem-details'] })
