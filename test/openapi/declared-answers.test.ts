import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { scopeDescription } from '../../src/auth/openapi-security.ts'
import { ERROR_CATALOGUE, codesAnsweredBy } from '../../src/http/problems/error-catalogue.ts'
import { documentGroups, documentedPath } from '../../src/openapi/groups.ts'
import { operationTraits } from '../../src/openapi/operation.ts'
import { candidatoVersions } from '../../src/representations/candidato-versions.ts'
import { vagaVersions } from '../../src/representations/vaga-versions.ts'
import { eventoVersions } from '../../src/representations/evento-versions.ts'
import { webhookVersions } from '../../src/representations/webhook-versions.ts'
import { servedVersions, type VersionedResource } from '../../src/versioning/profiles.ts'
import { build } from '../helper.ts'

interface Parameter { name: string, in: string, required?: boolean }
interface Response { content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> }
interface Operation { parameters?: Parameter[], responses: Record<string, Response> }
interface Document { paths: Record<string, Record<string, Operation>>, components: { securitySchemes?: Record<string, { flows?: { clientCredentials?: { tokenUrl: string, scopes: Record<string, string> } } }> } }

const TOKEN_URL = 'https://auth.example.com/oauth/token'

/** Every document the app serves: one per version of its version table, and ops. */
async function documents (app: FastifyInstance): Promise<Record<string, Document>> {
  const out: Record<string, Document> = {}
  for (const group of documentGroups(app.apiVersions)) out[group.name] = (await app.inject({ url: group.documentPath })).json()
  return out
}

function declaredCodes (operation: Operation, status: number): string[] {
  return operation.responses[String(status)]?.content?.['application/problem+json']?.schema?.properties?.code?.enum ?? []
}

/** The error table of docs/api.md: `| 415 | \`UnsupportedMediaType\` | ... |`, codes as listed. */
function documentedErrorTable (): Array<{ status: number, code: string }> {
  const guide = readFileSync(join(import.meta.dirname, '../../docs/api.md'), 'utf8')
  const section = guide.slice(guide.indexOf('\n## Errors'), guide.indexOf('\n### Hostile input'))
  return [...section.matchAll(/^\| (\d{3}) \| (.+?) \|/gm)].flatMap(([, status, codes]) =>
    [...codes!.matchAll(/`([A-Za-z]+)`/g)].map(([, code]) => ({ status: Number(status), code: code! })))
}

t.test('the error table of docs/api.md and the error catalogue hold the same codes, with the same statuses', async t => {
  const table = documentedErrorTable()
  t.ok(table.length >= 25, `the table was read (${table.length} codes)`)
  for (const { status, code } of table) {
    t.equal(ERROR_CATALOGUE.find(entry => entry.code === code)?.status, status, `${status} ${code} is catalogued`)
  }
  for (const entry of ERROR_CATALOGUE) {
    t.ok(table.some(row => row.code === entry.code && row.status === entry.status), `${entry.status} ${entry.code} is documented`)
  }
})

t.test('every operation declares each catalogued problem it can answer, and the optional parameters are optional', async t => {
  const routes: RouteOptions[] = []
  const app = await build(t, { env: { AUTH_TOKEN_URL: TOKEN_URL }, beforeApp: app => { app.addHook('onRoute', route => { routes.push(route) }) } })
  const docs = await documents(app)
  const groups = documentGroups(app.apiVersions)

  let checked = 0
  for (const route of routes) {
    if (route.method === 'HEAD') continue
    for (const group of groups) {
      const path = documentedPath(group, route)
      if (path === undefined) continue
      const operation = docs[group.name]!.paths[path.replace(/:(\w+)/g, '{$1}')]![String(route.method).toLowerCase()]!
      for (const entry of codesAnsweredBy(operationTraits(route, group.version !== undefined))) {
        t.ok(declaredCodes(operation, entry.status).includes(entry.code), `${group.name} ${String(route.method)} ${path} declares ${entry.status} ${entry.code}`)
        checked++
      }
    }
  }
  t.ok(checked > 500, `${checked} declarations checked in the ${Object.keys(docs).join(', ')} documents`)

  // Codes a route declares itself: each appears on some operation.
  const operations = Object.values(docs).flatMap(doc => Object.values(doc.paths).flatMap(ops => Object.values(ops)))
  for (const entry of ERROR_CATALOGUE.filter(entry => entry.answeredBy === 'route')) {
    t.ok(operations.some(operation => declaredCodes(operation, entry.status).includes(entry.code)), `some operation declares ${entry.status} ${entry.code}`)
  }

  // What clients hit first: a body of the wrong type or size, the rate limit, an unavailable database.
  const create = docs.v2!.paths['/api/v2/vagas']!.post!
  for (const [status, code] of [[413, 'BodyTooLarge'], [415, 'UnsupportedMediaType'], [429, 'RateLimited'], [503, 'DatabaseUnavailable'], [503, 'Overloaded'], [503, 'HandlerTimeout']] as const) {
    t.ok(declaredCodes(create, status).includes(code), `POST /api/v2/vagas declares ${status} ${code}`)
  }
  t.notOk(docs.ops!.paths['/ping']!.get!.responses['429'], '/ping is never rate limited')

  const paging = Object.values(docs).flatMap(doc => Object.values(doc.paths).flatMap(ops => Object.values(ops)))
    .flatMap(operation => (operation.parameters ?? []).filter(p => p.in === 'query' && (p.name === 'limit' || p.name === 'offset')))
  // Three list operations per version (/vagas, /candidatos, /vagas/{id}/candidatos): each takes a
  // limit, and an offset in the versions that page by offset; the event feed, the webhook subscriptions and their attempts take a limit where they are served.
  const byOffset = (resource: VersionedResource<{ paging: string }>) => servedVersions(app.apiVersions, resource).filter(served => served.profile.paging === 'offset').length
  const versions = app.apiVersions.versions.length
  const feeds = servedVersions(app.apiVersions, eventoVersions).filter(served => served.profile.served).length
  const withWebhooks = servedVersions(app.apiVersions, webhookVersions).filter(served => served.profile.served).length
  t.equal(paging.length, 3 * versions + byOffset(vagaVersions) + 2 * byOffset(candidatoVersions) + feeds + 2 * withWebhooks,
    `limit on the three list operations of each of ${versions} versions, on the ${feeds} feeds and the ${withWebhooks} webhook subscription and attempt lists, offset on those paged by offset`)
  t.same(paging.filter(p => p.required === true), [], 'paging parameters have defaults and are optional')
})

t.test('the oauth2 scheme lists every scope with a description, as the RFC 9728 metadata does', async t => {
  const app = await build(t, { env: { AUTH_TOKEN_URL: TOKEN_URL } })
  const docs = await documents(app)
  const metadata = (await app.inject({ url: '/.well-known/oauth-protected-resource' })).json() as { scopes_supported: string[] }
  t.ok(metadata.scopes_supported.length >= 8)
  for (const [group, doc] of Object.entries(docs)) {
    const flow = doc.components.securitySchemes?.oauth2?.flows?.clientCredentials
    t.equal(flow?.tokenUrl, TOKEN_URL, `${group}: tokens come from AUTH_TOKEN_URL`)
    t.same(Object.keys(flow?.scopes ?? {}).sort(), [...metadata.scopes_supported].sort(), `${group}: the same scopes as the metadata`)
    for (const [scope, description] of Object.entries(flow?.scopes ?? {})) t.equal(description, scopeDescription(scope), `${scope} is described`)
  }
})
