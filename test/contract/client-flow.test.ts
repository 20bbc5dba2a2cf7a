import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { createOpsClient, createV1Client, createV2Client, type ClientOptions } from '../../clients/typescript/src/index.js'
import { build, mintToken } from '../helper.js'
import { createChecker, type Document, type Exchange } from './response-check.js'
import { EXPECTED_OPS, EXPECTED_V1, EXPECTED_V2, flowOps, flowV1, flowV2 } from './flows.js'

const ALL = 'vagas:read vagas:write candidatos:read candidatos:write'

/** A fetch that keeps every answer for the check, as the client saw it. */
function recordingFetch (exchanges: Exchange[]): NonNullable<ClientOptions['fetch']> {
  return async request => {
    const response = await fetch(request)
    exchanges.push({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: await response.clone().text()
    })
    return response
  }
}

async function started (t: Parameters<typeof build>[0]): Promise<{ app: FastifyInstance, baseUrl: string }> {
  const app = await build(t)
  await app.health.lifecycle.reached('serving')
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, baseUrl }
}

async function clientOptions (baseUrl: string, exchanges: Exchange[], scopes = { full: ALL, readOnly: 'vagas:read' }) {
  const fetch = recordingFetch(exchanges)
  return {
    full: { baseUrl, fetch, token: await mintToken({ scope: scopes.full }) },
    readOnly: { baseUrl, fetch, token: await mintToken({ scope: scopes.readOnly }) },
    anonymous: { baseUrl, fetch }
  }
}

t.test('the typed client runs a full flow in both versions and on the operations, and every answer matches its document', async t => {
  const { app, baseUrl } = await started(t)
  const documents = {
    v1: (await app.inject({ url: '/docs/v1/openapi.json' })).json() as Document,
    v2: (await app.inject({ url: '/docs/v2/openapi.json' })).json() as Document,
    ops: (await app.inject({ url: '/docs/ops/openapi.json' })).json() as Document
  }
  const unique = Date.now().toString(36)

  const v2: Exchange[] = []
  const v2Options = await clientOptions(baseUrl, v2)
  const v2Statuses = await flowV2({ full: createV2Client(v2Options.full), readOnly: createV2Client(v2Options.readOnly), anonymous: createV2Client(v2Options.anonymous) }, unique)
  t.same(v2Statuses, EXPECTED_V2, 'v2: every step answered what the flow provokes')

  const v1: Exchange[] = []
  const v1Options = await clientOptions(baseUrl, v1)
  const v1Statuses = await flowV1({ full: createV1Client(v1Options.full), readOnly: createV1Client(v1Options.readOnly), anonymous: createV1Client(v1Options.anonymous) }, unique)
  t.same(v1Statuses, EXPECTED_V1, 'v1: every step answered what the flow provokes')

  const ops: Exchange[] = []
  const opsOptions = await clientOptions(baseUrl, ops, { full: 'health:read metrics:read heartbeat:write', readOnly: 'vagas:read' })
  const opsStatuses = await flowOps({ full: createOpsClient(opsOptions.full), readOnly: createOpsClient(opsOptions.readOnly), anonymous: createOpsClient(opsOptions.anonymous) }, unique)
  t.same(opsStatuses, EXPECTED_OPS, 'ops: every step answered what the flow provokes')

  for (const [group, exchanges, expected] of [['v2', v2, EXPECTED_V2], ['v1', v1, EXPECTED_V1], ['ops', ops, EXPECTED_OPS]] as const) {
    const check = createChecker(documents[group])
    t.equal(exchanges.length, expected.length, `${group}: every answer was recorded`)
    for (const exchange of exchanges) t.same(check(exchange), [], `${group} ${exchange.method} ${exchange.path} ${exchange.status} matches the document`)
  }
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
