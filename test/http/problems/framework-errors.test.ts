import t from 'tap'
import type { Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, build } from '../../helper.ts'
import { frameworkProblem } from '../../../src/http/problems/framework-errors.ts'

function assertProblem (t: Test, res: LightMyRequestResponse, status: number, code: string): void {
  t.equal(res.statusCode, status)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  const body = res.json()
  t.match(body, { type: `urn:problem-type:recrutamento:${code}`, status, code })
  t.type(body.title, 'string')
  t.equal(body.requestId, res.headers['x-request-id'], 'the request id is in the body and the header')
  t.equal(res.headers['cache-control'], 'no-store', 'not cached, like every other error')
  t.notMatch(res.body, /FST_ERR|is not a valid url component|exceeding the max param length/, 'nothing of the framework\'s own answer')
}

t.test('a malformed percent-encoding in the path answers 400 InvalidUrl as problem+json', async t => {
  const app = await build(t)
  const auth = await bearer({ scope: 'vagas:read' })
  for (const url of ['/api/v1/vagas/%E0%A4%A', '/api/v2/vagas/%zz', '/ping/%', '/health/%C0%AF']) {
    const res = await app.inject({ url, headers: auth })
    assertProblem(t, res, 400, 'InvalidUrl')
    t.equal(res.json().instance, url, `${url}: the instance is the path as sent`)
  }
})

t.test('a path segment longer than the router accepts answers 414 UriTooLong as problem+json', async t => {
  const app = await build(t)
  const auth = await bearer({ scope: 'vagas:read' })
  const res = await app.inject({ url: `/api/v2/vagas/${'a'.repeat(101)}?limit=1`, headers: auth })
  assertProblem(t, res, 414, 'UriTooLong')
  t.equal(res.json().instance, `/api/v2/vagas/${'a'.repeat(101)}`, 'the instance leaves out the query')
  const within = await app.inject({ url: `/api/v2/vagas/${'a'.repeat(100)}`, headers: auth })
  t.equal(within.statusCode, 404, 'a segment within the limit reaches the route, which finds nothing')
})

t.test('a refused URL keeps the caller\'s request id and is logged as a refusal', async t => {
  const lines: Array<Record<string, unknown>> = []
  const app = await build(t, { env: { LOG_LEVEL: 'info' }, logStream: { write: line => { lines.push(JSON.parse(line)) } } })
  const res = await app.inject({ url: '/api/v1/vagas/%E0%A4%A', headers: { 'x-request-id': 'client-abc-1' } })
  t.equal(res.headers['x-request-id'], 'client-abc-1')
  t.equal(res.json().requestId, 'client-abc-1')
  t.match(lines.find(line => line.msg === 'request refused'), { reqId: 'client-abc-1', status: 400, code: 'InvalidUrl' })
})

t.test('a framework error that is not the client\'s fault is an internal error', async t => {
  const problem = frameworkProblem({ code: 'FST_ERR_ASYNC_CONSTRAINT' })
  t.equal(problem.status, 500)
  t.equal(problem.fields.code, 'InternalError')
})
