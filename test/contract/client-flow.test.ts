import t from 'tap'
import { build } from '../helper.ts'
import { createChecker, type Document, type Exchange } from './response-check.ts'
import { runClientFlows } from './run-flows.ts'

t.test('the typed client runs a full flow in both versions and on the operations, and every answer matches its document', async t => {
  const app = await build(t)
  await app.health.lifecycle.reached('serving')
  await runClientFlows(t, await app.listen({ port: 0, host: '127.0.0.1' }))
})

t.test('the check refuses an undeclared status, a body off its schema and an undeclared field', async t => {
  const document: Document = {
    paths: { '/things/{id}': { get: { responses: { 200: { content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } } } } } } }
  }
  const check = createChecker(document)
  const answer = (status: number, body: unknown): Exchange => ({ method: 'GET', path: '/things/1', status, contentType: 'application/json', body: JSON.stringify(body) })
  t.same(check(answer(200, { id: 'a' })), [])
  t.match(check(answer(404, { id: 'a' })), [/status is not declared/])
  t.match(check(answer(200, { id: 1 })), [/must be string/])
  t.match(check(answer(200, { id: 'a', secret: 'x' })), [/\/secret is not declared/])
})
