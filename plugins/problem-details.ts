import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { Problem, PROBLEM_CONTENT_TYPE, problemBody, problemInstance } from '../src/http/problems/problem.ts'
import { isDatabaseDeadline, isDatabaseUnavailable, isStorageFull } from '../src/storage/errors.ts'
import { defaultHeaders, isCountedRefusal, problem, uncodedProblem, type ProblemCode } from '../src/http/problems/error-catalogue.ts'
import { createRefusalLog } from '../src/logging/refusal-log.ts'
import { DATE_TIME_MESSAGE } from '../src/http/input/date-time.ts'

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
const FRAMEWORK_CODES: Record<string, ProblemCode | undefined> = {
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
    const message = issue.keyword === 'format' && params.format === 'date-time' ? DATE_TIME_MESSAGE : issue.message ?? 'is invalid'
    return { in: error.validationContext ?? 'request', field: field === '' ? '/' : field, message }
  })
}

/** Maps anything thrown to a problem that is safe to show: 5xx causes stay in the log. */
export function toProblem (error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error
  if (error.validation !== undefined) {
    // A path parameter that fails its schema names no resource: the URI maps to nothing (404).
    if (error.validationContext === 'params') {
      return problem('NotFound')
    }
    return problem('ValidationFailed', { detail: `The request ${error.validationContext ?? 'input'} is invalid.`, errors: fieldErrors(error) })
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return problem('InvalidJson')
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const code = FRAMEWORK_CODES[error.code]
    return code === undefined ? uncodedProblem(status, error.message) : problem(code, { detail: error.message })
  }
  if (isDatabaseUnavailable(error)) {
    return problem('DatabaseUnavailable')
  }
  if (isStorageFull(error)) {
    return problem('StorageFull')
  }
  if (error.code === 'FST_ERR_HANDLER_TIMEOUT' || isDatabaseDeadline(error)) {
    return problem('HandlerTimeout')
  }
  if (status === 503) {
    return problem('ServiceUnavailable')
  }
  return problem('InternalError')
}

async function problemDetails (fastify: FastifyInstance): Promise<void> {
  const refusals = createRefusalLog(fastify.log.child({ component: 'refusals' }), fastify.config.REFUSED_LOG_INTERVAL_MS)
  fastify.addHook('onClose', async () => { refusals.close() })
  const settings = { retryAfterSeconds: fastify.config.RETRY_AFTER_SECONDS }

  fastify.decorateReply('sendProblem', function (this: FastifyReply, answer: Problem) {
    if (answer.status === 503) refusals.count(answer.fields.code ?? 'ServiceUnavailable')
    const headers = defaultHeaders(answer.fields.code, settings)
    if (headers !== undefined) this.headers(headers)
    if (answer.fields.headers !== undefined) this.headers(answer.fields.headers)
    return this.code(answer.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemBody(answer, problemInstance(this.request.originalUrl), String(this.request.id))))
  })

  fastify.setErrorHandler(function handleError (error: FastifyError | Problem, request, reply) {
    const answer = toProblem(error)
    // A refusal the service chose (a dependency down, out of time): sendProblem counts it, so an outage
    // under load writes a count per interval, not a line and stack per request.
    if (isCountedRefusal(answer)) return reply.sendProblem(answer)
    if (answer.status >= 500) {
      request.log.error({ err: error }, 'request failed')
    } else {
      request.log.info({ status: answer.status, code: answer.fields.code }, 'request refused')
    }
    return reply.sendProblem(answer)
  })
}

export default fp(problemDetails, { name: 'problem-details', fastify: '5.x', dependencies: ['config'] })
