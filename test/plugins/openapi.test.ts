import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { documentGroups } from '../../src/openapi/groups.ts'
import { build, sharedApp } from '../helper.ts'

/** The documents the app serves: one per version of its version table, and ops. */
function groupNames (app: FastifyInstance): string[] {
  return documentGroups(app.apiVersions).map(group => group.name)
}

interface Operation { operationId: string, deprecated?: boolean, security?: Array<Record<string, string[]>>, 'x-scopes'?: string[], responses: Record<string, { content?: Record<string, { schema: unknown }> }>, parameters?: Array<{ name: string, in: string }> }
type Document = { openapi: string, info: { title: string, version: string, description: string }, paths: Record<string, Record<string, Operation>>, components: Record<string, Record<string, unknown>>, tags: Array<{ name: string }> }

// Routes like the business routes, beside the service's own health routes: protected, parametric,
// one per version (the oldest without `name`), in every version at once, and neutral.
function sampleRoutes (app: FastifyInstance): void {
  const id = Type.Object({ id: Type.String({ format: 'uuid' }) })
  const versions = app.apiVersions.versions.map(v => v.version)
  for (const [index, version] of versions.entries()) {
    const gadget = index === 0 ? Type.Object({ id: Type.String() }) : Type.Object({ id: Type.String(), name: Type.String() })
    app.get('/api/gadgets/:id', { constraints: { apiVersion: version }, config: { scopes: ['vagas:read'] }, schema: { tags: ['vagas'], summary: `Read a gadget (${version})`, params: id, response: { 200: gadget } } }, async () => ({ id: 'x', name: 'y' }))
  }
  app.post('/api/gadgets', { constraints: { apiVersion: versions }, config: { scopes: ['vagas:write', 'vagas:read'] }, schema: { tags: ['vagas'], summary: 'Create a gadget', body: Type.Object({ name: Type.String() }), response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'x' }))
  app.get('/health/gadgets', { config: { scopes: ['health:read'] }, schema: { tags: ['health'], summary: 'Gadget health', response: { 200: Type.Object({ status: Type.String() }) } } }, async () => ({ status: 'Healthy' }))
}

async function documents (app: FastifyInstance): Promise<Record<string, Document>> {
  const out: Record<string, Document> = {}
  for (const group of groupNames(app)) {
    const res = await app.inject({ url: `/docs/${group}/openapi.json` })
    if (res.statusCode !== 200) throw new Error(`/docs/${group}/openapi.json answered ${res.statusCode}`)
    out[group] = res.json()
  }
  return out
}

// The tests on the default settings share an app, with the sample routes or without: none changes it.
const plain = sharedApp()
const withSamples = sharedApp({ extraRoutes: sampleRoutes })

t.test('each version document holds only its operations, at versioned paths', async t => {
  const app = await withSamples()
  const docs = await documents(app)
  for (const group of groupNames(app)) t.equal(docs[group]!.openapi, '3.1.0', group)
  for (const { group, version } of app.apiVersions.versions) {
    const prefix = `/api/${group}/`
    const paths = Object.keys(docs[group]!.paths)
    for (const path of ['gadgets', 'gadgets/{id}', 'user', 'versions']) t.ok(paths.includes(prefix + path), `${group} has ${prefix + path}`)
    t.same(paths.filter(path => !path.startsWith(prefix)), [], `${group} holds only ${prefix} paths`)
    t.match(docs[group]!.paths[`${prefix}gadgets/{id}`]!.get, { summary: `Read a gadget (${version})`, parameters: [{ name: 'id', in: 'path' }] }, `${group}: its own gadget route`)
  }
  const opsPaths = Object.keys(docs.ops!.paths)
  for (const path of ['/health/gadgets', '/health/live', '/ping']) t.ok(opsPaths.includes(path), `ops has ${path}`)
  t.same(opsPaths.filter(path => path.startsWith('/api') || path.startsWith('/docs')), [], 'ops holds no versioned or docs path')
  t.equal(docs.v1!.paths['/api/v1/gadgets/{id}']!.get!.operationId !== undefined, true)
})

t.test('security comes from the route policy; public routes say so; the oauth2 scheme only with AUTH_TOKEN_URL', async t => {
  // Without a token endpoint the documents name none: the scopes go under the bearer scheme.
  const app = await withSamples()
  const docs = await documents(app)
  const create = docs.v2!.paths['/api/v2/gadgets']!.post!
  t.same(create.security, [{ bearerAuth: [] }])
  t.same(create['x-scopes'], ['vagas:write', 'vagas:read'], 'the scopes it needs')
  t.ok(create.responses['401'] && create.responses['403'], 'protected operations list 401 and 403')
  t.same(docs.ops!.paths['/health/gadgets']!.get!.security, [{ bearerAuth: [] }])
  t.same(docs.ops!.paths['/health/gadgets']!.get!['x-scopes'], ['health:read'])
  t.same(docs.ops!.paths['/health']!.get!.security, [{}, { bearerAuth: [] }], 'optional authentication')
  t.same(docs.ops!.paths['/ping']!.get!.security, [])
  t.notOk(docs.ops!.paths['/ping']!.get!.responses['401'])
  // Deny by default: a route declaring no scopes still needs a token, and its document says so.
  t.same(docs.v2!.paths['/api/v2/user']!.get!.security, [{ bearerAuth: [] }])
  t.ok(docs.v2!.paths['/api/v2/user']!.get!.responses['401'], 'it lists 401')
  for (const group of ['v2', 'ops']) {
    t.notOk('oauth2' in docs[group]!.components.securitySchemes, `${group}: no oauth2 scheme pointing at a token URL nobody answers`)
    t.match(docs[group]!.components.securitySchemes, { bearerAuth: { type: 'http', scheme: 'bearer', description: /`vagas:read`: Read vacancies/ } })
  }

  const withTokenUrl = await build(t, { extraRoutes: sampleRoutes, env: { AUTH_TOKEN_URL: 'https://auth.example.com/oauth/token' } })
  const oauth = await documents(withTokenUrl)
  t.same(oauth.v2!.paths['/api/v2/gadgets']!.post!.security, [{ oauth2: ['vagas:write', 'vagas:read'] }, { bearerAuth: [] }])
  t.same(oauth.ops!.paths['/health']!.get!.security, [{}, { oauth2: [] }, { bearerAuth: [] }], 'optional authentication')
  for (const group of ['v2', 'ops']) {
    t.match(oauth[group]!.components.securitySchemes, {
      oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/oauth/token', scopes: { 'vagas:read': String } } } },
      bearerAuth: { type: 'http', scheme: 'bearer' }
    })
  }
})

t.test('errors are problem+json answers sharing one schema', async t => {
  const app = await withSamples()
  const docs = await documents(app)
  const read = docs.v2!.paths['/api/v2/gadgets/{id}']!.get!
  for (const status of ['400', '401', '403', '404', '500']) {
    t.match(read.responses[status]?.content, { 'application/problem+json': { schema: { allOf: [{ $ref: '#/components/schemas/Problem' }], properties: { code: { enum: Array } } }, example: { status: Number(status) } } }, status)
  }
  t.match(docs.v2!.components.schemas!.Problem, { type: 'object', required: ['type', 'title', 'status', 'instance', 'requestId'] })
})

t.test('a deprecated version says so, and newer versions are named', async t => {
  const app = await withSamples()
  const docs = await documents(app)
  t.match(docs.v1!.info, { version: '1.0', title: /deprecated/ })
  t.match(docs.v1!.info.description, /deprecated.*Newer versions are available: \[2\.0\]\(\/docs\/v2\)/s)
  const newer = app.apiVersions.versions.filter(v => !v.deprecated).map(v => `[${v.version}](/docs/${v.group})`).join(', ')
  for (const { group, version, deprecated } of app.apiVersions.versions) {
    const doc = docs[group]!
    t.equal(doc.info.version, version, `${group}: info.version`)
    if (deprecated) t.match(doc.info.description, `Newer versions are available: ${newer}.`, `${group}: names the newer versions`)
    else t.notMatch(doc.info.description, /\*\*Deprecated/, `${group}: not deprecated`)
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) t.equal(operation.deprecated === true, deprecated, `${group} ${operation.operationId}: deprecated ${String(deprecated)}`)
    }
  }
})

t.test('every route appears once in the document of each version it serves, and no two collide', async t => {
  const routes: RouteOptions[] = []
  const app = await build(t, { beforeApp: app => { app.addHook('onRoute', route => { routes.push(route) }) }, extraRoutes: sampleRoutes })
  const docs = await documents(app)
  const versionGroups = new Map(app.apiVersions.versions.map(v => [v.version, v.group]))
  const seen = new Map<string, number>()
  let checked = 0
  for (const route of routes) {
    const method = String(route.method).toLowerCase()
    if (method === 'head' || route.url === '/docs' || route.url.startsWith('/docs/')) continue
    const path = route.url.replace(/:(\w+)/g, '{$1}')
    const declared = route.constraints?.apiVersion as string | string[] | undefined
    const expected = !route.url.startsWith('/api/')
      ? { ops: path }
      : Object.fromEntries((declared === undefined ? [...versionGroups.keys()] : [declared].flat()).map(v => [versionGroups.get(v)!, path.replace(/^\/api/, `/api/${versionGroups.get(v)!}`)]))
    for (const group of groupNames(app)) {
      const where = expected[group]
      if (where === undefined) continue
      t.ok(docs[group]!.paths[where]?.[method], `${method} ${route.url} is in ${group} at ${where}`)
      const key = `${group} ${method} ${where}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
      checked++
    }
  }
  t.ok(checked >= 11, 'at least ping, user x2, versions x2, gadgets x4, health x2 were checked')
  t.same([...seen].filter(([, count]) => count > 1), [], 'no two routes share a method and path in a document')
  const placed = groupNames(app).reduce((n, group) => n + Object.values(docs[group]!.paths).reduce((m, ops) => m + Object.keys(ops).length, 0), 0)
  t.equal(placed, checked, 'the documents hold nothing else')
  for (const group of groupNames(app)) {
    const ids = Object.values(docs[group]!.paths).flatMap(ops => Object.values(ops).map(op => op.operationId))
    t.equal(new Set(ids).size, ids.length, `${group}: operationIds are unique`)
  }
})

t.test('the interactive docs are served per group, publicly', async t => {
  const app = await plain()
  for (const group of groupNames(app)) {
    const res = await app.inject({ url: `/docs/${group}` })
    t.equal(res.statusCode, 200, group)
    t.match(res.headers['content-type'], /^text\/html/)
    const init = await app.inject({ url: `/docs/${group}/static/swagger-initializer.js` })
    t.match(init.body, /"urls\.primaryName"/, `${group} has a selector between the documents`)
    for (const other of groupNames(app)) t.match(init.body, `/docs/${other}/openapi.json`)
  }
})

t.test('each document is served from one serialized copy with a strong ETag; If-None-Match answers 304', async t => {
  const app = await plain()
  for (const group of groupNames(app)) {
    const first = await app.inject({ url: `/docs/${group}/openapi.json` })
    const etag = first.headers.etag as string
    t.match(etag, /^"[A-Za-z0-9_-]{20,}"$/, `${group}: a strong ETag`)
    t.equal(first.headers['cache-control'], 'no-cache', `${group}: stored copies are revalidated`)
    t.match(first.headers['content-type'], /^application\/json/)
    const again = await app.inject({ url: `/docs/${group}/openapi.json` })
    t.equal(again.headers.etag, etag, `${group}: the same ETag on every request`)
    t.equal(again.body, first.body, `${group}: the same bytes`)
    const uiCopy = await app.inject({ url: `/docs/${group}/json` })
    t.equal(uiCopy.headers.etag, etag, `${group}: the UI's own copy is the same document`)
    t.equal(uiCopy.body, first.body)
    const current = await app.inject({ url: `/docs/${group}/openapi.json`, headers: { 'if-none-match': etag } })
    t.equal(current.statusCode, 304, `${group}: a current copy gets 304`)
    t.equal(current.body, '', `${group}: without the document`)
    t.equal(current.headers.etag, etag)
    const stale = await app.inject({ url: `/docs/${group}/openapi.json`, headers: { 'if-none-match': '"an-older-release"' } })
    t.equal(stale.statusCode, 200, `${group}: a stale copy gets the document`)
  }
})

t.test('the docs are rate limited per client like the API', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '2' } })
  for (const url of ['/docs/v2/openapi.json', '/docs/v2']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['ratelimit-limit'], '2', `${url} counts against the budget`)
  }
  const refused = await app.inject({ url: '/docs/v1/openapi.json' })
  t.equal(refused.statusCode, 429)
  t.match(refused.headers['content-type'], /^application\/problem\+json/)
  t.match(refused.json(), { status: 429, code: 'RateLimited' })
})

t.test('/docs leads to the current version', async t => {
  const app = await plain()
  const res = await app.inject({ url: '/docs' })
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, `/docs/${app.apiVersions.current.group}`)
})
