import type { Test } from 'tap'
import { createOpsClient, createV1Client, createV2Client, type ClientOptions } from '../../clients/typescript/src/index.ts'
import { ALL_SCOPES, mintToken } from '../helper.ts'
import { createChecker, type Document, type Exchange } from './response-check.ts'
import { EXPECTED_OPS, EXPECTED_V1, EXPECTED_V2, flowOps, flowV1, flowV2 } from './flows.ts'

const GROUPS = ['v2', 'v1', 'ops'] as const

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

async function clientOptions (baseUrl: string, exchanges: Exchange[], scopes: { full: string, readOnly: string }) {
  const fetch = recordingFetch(exchanges)
  return {
    full: { baseUrl, fetch, token: await mintToken({ scope: scopes.full }) },
    readOnly: { baseUrl, fetch, token: await mintToken({ scope: scopes.readOnly }) },
    anonymous: { baseUrl, fetch }
  }
}

/**
 * Runs the typed client's full flow in both versions and on the operations against the service at
 * `baseUrl`, asserts the statuses each step meant to provoke, and checks every answer against the
 * OpenAPI document the service itself serves for its group.
 */
export async function runClientFlows (t: Test, baseUrl: string): Promise<void> {
  const documents = Object.fromEntries(await Promise.all(GROUPS.map(async group =>
    [group, await (await fetch(`${baseUrl}/docs/${group}/openapi.json`)).json() as Document]))) as Record<typeof GROUPS[number], Document>
  const unique = Date.now().toString(36)
  const business = { full: ALL_SCOPES, readOnly: 'vagas:read' }

  const v2: Exchange[] = []
  const v2Options = await clientOptions(baseUrl, v2, business)
  const v2Statuses = await flowV2({ full: createV2Client(v2Options.full), readOnly: createV2Client(v2Options.readOnly), anonymous: createV2Client(v2Options.anonymous) }, unique)
  t.same(v2Statuses, EXPECTED_V2, 'v2: every step answered what the flow provokes')

  const v1: Exchange[] = []
  const v1Options = await clientOptions(baseUrl, v1, business)
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
}
