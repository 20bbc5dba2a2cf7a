import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { NO_STORE_HEADERS } from '../conventions/no-store.ts'
import { type Problem, PROBLEM_CONTENT_TYPE, problemBody, problemInstance } from './problem.ts'
import { problem } from './error-catalogue.ts'

// Fastify's router refuses some URLs before any route, hook or error handler runs; without this
// option it answers them with its own plain JSON, naming its error codes and echoing the URL.
export function frameworkProblem (error: Pick<FastifyError, 'code'>): Problem {
  if (error.code === 'FST_ERR_BAD_URL') {
    return problem('InvalidUrl')
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return problem('UriTooLong')
  }
  // FST_ERR_ASYNC_CONSTRAINT, or a code added by a later Fastify: a failure of ours, not the client's.
  return problem('InternalError')
}

/**
 * Fastify's `frameworkErrors`: the refusal as a problem document. No hook runs for these requests,
 * so the headers every other answer gets from the http-conventions plugin are set here.
 */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = frameworkProblem(error)
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ status: problem.status, code: problem.fields.code }, 'request refused')
  const id = String(request.id)
  reply.code(problem.status)
    .headers({ ...NO_STORE_HEADERS, 'x-request-id': id })
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problemBody(problem, problemInstance(request.originalUrl), id)))
}
