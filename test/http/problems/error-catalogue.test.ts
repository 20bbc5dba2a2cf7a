import t from 'tap'
import { STATUS_CODES } from 'node:http'
import { ERROR_CATALOGUE, defaultHeaders, problem, type ProblemCode } from '../../../src/http/problems/error-catalogue.ts'
import { problemBody } from '../../../src/http/problems/problem.ts'

t.test('a problem made from its code carries the catalogue\'s status, type, title and detail', async t => {
  for (const entry of ERROR_CATALOGUE) {
    const body = problemBody(problem(entry.code as ProblemCode), '/x', 'req-1')
    t.match(body, {
      type: `urn:problem-type:recrutamento:${entry.code}`,
      title: STATUS_CODES[entry.status],
      status: entry.status,
      detail: entry.detail,
      code: entry.code
    }, entry.code)
  }
})

t.test('a site may give its own detail and extension members, never another code or status', async t => {
  const made = problem('NotFound', { detail: 'No dependency is named x.', name: 'x', code: 'Overloaded', status: 503 })
  t.equal(made.status, 404)
  t.match(problemBody(made, '/x', 'r'), { code: 'NotFound', detail: 'No dependency is named x.', name: 'x', status: 404 })
})

t.test('every code whose detail says "try again" carries Retry-After from the settings, and only those', async t => {
  for (const entry of ERROR_CATALOGUE) {
    const headers = defaultHeaders(entry.code, { retryAfterSeconds: 42 })
    if (/try again/i.test(entry.detail)) t.same(headers, { 'retry-after': '42' }, entry.code)
    else t.equal(headers?.['retry-after'], undefined, entry.code)
  }
})
