import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { Problem, PROBLEM_CONTENT_TYPE, problemBody, problemInstance } from '../src/http/problem.js'
import { isDatabaseUnavailable } from '../src/storage/errors.js'
import { createRefusalLog } from '../src/logging/refusal-log.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Answers with an RFC 9457 problem; the one way any error leaves the service. */
    sendProblem: (problem: Problem) => FastifyReply
  }
}

interface FieldError {
  in: string
  field: string
  message: string
}

// Fastify's own client errors, named by the cause a client can act on.
const FRAMEWORK_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BodyTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UnsupportedMediaType',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'InvalidContentLength',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'EmptyJsonBody',
  FST_ERR_CTP_INVALID_JSON_BODY: 'InvalidJson',
  FST_ERR_BAD_URL: 'InvalidUrl'
}

function fieldErrors (error: FastifyError): FieldError[] {
  return (error.validation ?? []).map(issue => {
    const params = issue.params as Record<string, unknown>
    const child = params.missingProperty ?? params.additionalProperty
    const field = typeof child === 'string' ? `${issue.instancePath}/${child}` : issue.instancePath
    return { in: error.validationContext ?? 'request', field: field === '' ? '/' : field, message: issue.message ?? 'is invalid' }
  })
}

/** Maps anything thrown to a problem that is safe to show: 5xx causes stay in the log. */
export function toProblem (error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error
  if (error.validation !== undefined) {
    // A path parameter that fails its schema names no resource: the URI maps to nothing (404).
    if (error.validationContext === 'params') {
      return new Problem(404, { detail: 'No resource is found at this URI.', code: 'NotFound' })
    }
    return new Problem(400, {
      detail: `The request ${error.validationContext ?? 'input'} is invalid.`,
      code: 'ValidationFailed',
      errors: fieldErrors(error)
    })
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new Problem(400, { detail: 'The request body is not valid JSON.', code: 'InvalidJson' })
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    return new Problem(status, { detail: error.message, code: FRAMEWORK_CODES[error.code] })
  }
  if (isDatabaseUnavailable(error)) {
    return new Problem(503, { detail: 'The database is not reachable right now; try again shortly.', code: 'DatabaseUnavailable', headers: { 'retry-after': '5' } })
  }
  if (error.code === 'FST_ERR_HANDLER_TIMEOUT') {
    return new Problem(503, { detail: 'The request took longer than this service allows; try again shortly.', code: 'HandlerTimeout', headers: { 'retry-after': '5' } })
  }
  if (status === 503) {
    return new Problem(503, { detail: 'The service cannot answer right now; try again shortly.', code: 'ServiceUnavailable' })
  }
  return new Problem(500, { detail: 'The server failed to answer this request. Quote the requestId when reporting it.', code: 'InternalError' })
}

async function problemDetails (fastify: FastifyInstance): Promise<void> {
  const refusals = createRefusalLog(fastify.log.child({ component: 'refusals' }), fastify.config.REFUSED_LOG_INTERVAL_MS)
  fastify.addHook('onClose', async () => { refusals.close() })

  fastify.decorateReply('sendProblem', function (this: FastifyReply, problem: Problem) {
    if (problem.status === 503) refusals.count(problem.fields.code ?? 'ServiceUnavailable')
    const headers = problem.fields.headers
    if (headers !== undefined) this.headers(headers)
    return this.code(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemBody(problem, problemInstance(this.request.originalUrl), String(this.request.id))))
  })

  fastify.setErrorHandler(function handleError (error: FastifyError | Problem, request, reply) {
    const problem = toProblem(error)
    // A 503 with Retry-After is a refusal the service chose (a dependency down, out of time): sendProblem
    // counts it, so an outage under load writes a count per interval, not a line and stack per request.
    if (problem.status === 503 && problem.fields.headers?.['retry-after'] !== undefined) return reply.sendProblem(problem)
    if (problem.status >= 500) {
      request.log.error({ err: error }, 'request failed')
    } else {
      request.log.info({ status: problem.status, code: problem.fields.code }, 'request refused')
    }
    return reply.sendProblem(problem)
  })
}

export default fp(problemDetails, { name: 'problem-details', fastify: '5.x', dependencies: ['config'] })
