// What a failed call throws, with what a program branches on: the problem, the request id, how many
// attempts were made and whether sending it again later could succeed. Calls that answer a problem
// return it (`error`, typed per operation; `callInfo(response)` has the rest); these are thrown
// where there is no answer to return: no answer at all, or a page a loop could not go past.

/** An RFC 9457 problem as the service writes it (docs/api.md, "Errors"). */
export interface Problem {
  type: string
  title: string
  status: number
  detail?: string
  code?: string
  requestId?: string
  [field: string]: unknown
}

/** No answer: every attempt lost its connection or timed out, or the request was not one to resend. */
export class ApiRequestError extends Error {
  readonly attempts: number
  readonly retryable: boolean

  constructor (message: string, attempts: number, retryable: boolean, cause: unknown) {
    super(message, { cause })
    this.attempts = attempts
    this.retryable = retryable
    this.name = 'ApiRequestError'
  }
}

/** A page of `paginate` or `followFeed` answered with a problem. */
export class ApiProblemError extends Error {
  readonly problem: Problem
  readonly attempts: number
  readonly requestId: string | null
  readonly retryable: boolean

  constructor (problem: Problem, attempts: number, requestId: string | null, retryable: boolean) {
    super(`${problem.status} ${problem.code ?? problem.title}: ${problem.detail ?? ''}`)
    this.problem = problem
    this.attempts = attempts
    this.requestId = requestId
    this.retryable = retryable
    this.name = 'ApiProblemError'
  }
}
