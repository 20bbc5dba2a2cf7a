// Webhook subscriptions: the secret shown once, rotation, scopes, and targets that are refused.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ALL_SCOPES, bearer, build } from '../../helper.ts'
import { freshPostgresDatabase } from '../../support/services.ts'

const SCOPE = 'webhooks:write eventos:read'

async function app (t: Parameters<typeof build>[0], env: Record<string, string> = {}): Promise<FastifyInstance> {
  const built = await build(t, { env })
  await built.health.lifecycle.reached('serving')
  return built
}

t.test('create, read, change, rotate, remove', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const headers = await bearer({ scope: SCOPE })
  const created = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'http://127.0.0.1:9/hook', tipos: ['vaga.criada'] } })
  t.equal(created.statusCode, 201, created.body)
  const webhook = created.json()
  t.match(webhook, { url: 'http://127.0.0.1:9/hook', tipos: ['vaga.criada'], ativo: true, desativadoEm: null, segredo: /^whsec_/ })
  t.equal(created.headers.location, `/api/v2/webhooks/${webhook.id}`)

  const read = await service.inject({ url: `/api/v2/webhooks/${webhook.id}`, headers })
  t.equal(read.statusCode, 200)
  t.notOk('segredo' in read.json(), 'the secret is not shown again')
  const list = await service.inject({ url: '/api/v2/webhooks', headers })
  t.same(list.json().items.map((item: { id: string }) => item.id), [webhook.id])
  t.notOk(list.body.includes(webhook.segredo), 'nor in the list')

  const changed = await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${webhook.id}`, headers, payload: { tipos: [], ativo: false } })
  t.match(changed.json(), { tipos: [], ativo: false })

  const rotated = await service.inject({ method: 'POST', url: `/api/v2/webhooks/${webhook.id}/rotacionar-segredo`, headers })
  t.equal(rotated.statusCode, 200)
  t.match(rotated.json().segredo, /^whsec_/)
  t.not(rotated.json().segredo, webhook.segredo, 'a new secret')

  const attempts = await service.inject({ url: `/api/v2/webhooks/${webhook.id}/tentativas`, headers })
  t.same(attempts.json(), { items: [] }, 'no attempts yet')

  t.equal((await service.inject({ method: 'DELETE', url: `/api/v2/webhooks/${webhook.id}`, headers })).statusCode, 204)
  t.equal((await service.inject({ url: `/api/v2/webhooks/${webhook.id}`, headers })).statusCode, 404)
  t.equal((await service.inject({ method: 'POST', url: `/api/v2/webhooks/${webhook.id}/rotacionar-segredo`, headers })).statusCode, 404)
  t.equal((await service.inject({ url: `/api/v2/webhooks/${webhook.id}/tentativas`, headers })).statusCode, 404)

  const invalid = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'ftp://example.com/', tipos: ['nada'] } })
  t.match(invalid.json(), { status: 400, code: 'ValidationFailed' })
})

t.test('webhooks:write is needed, even to read; only version 2 serves them', async t => {
  const service = await app(t)
  t.equal((await service.inject({ url: '/api/v2/webhooks' })).statusCode, 401)
  const reader = await bearer({ scope: ALL_SCOPES })
  const denied = await service.inject({ url: '/api/v2/webhooks', headers: reader })
  t.match(denied.json(), { status: 403, code: 'InsufficientScope' })
  const created = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers: reader, payload: { url: 'https://example.com/hook' } })
  t.equal(created.statusCode, 403)
  const v1 = await service.inject({ url: '/api/v1/webhooks', headers: await bearer({ scope: SCOPE }) })
  t.match(v1.json(), { status: 400, code: 'UnsupportedApiVersion' })
})

const LOCAL_TARGETS = [
  'http://127.0.0.1/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/hook', 'http://[fe80::1]/hook',
  'http://[::ffff:127.0.0.1]/hook', 'http://localhost:8080/hook', 'https://192.168.0.10/hook'
]

t.test('targets that are not public are refused', async t => {
  const service = await app(t)
  const headers = await bearer({ scope: SCOPE })
  for (const url of LOCAL_TARGETS) {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url } })
    t.match(res.json(), { status: 422, code: 'WebhookTargetRefused' }, url)
  }
  t.same((await service.inject({ url: '/api/v2/webhooks', headers })).json().items, [], 'none was stored')
})

t.test('unless WEBHOOK_ALLOW_PRIVATE_TARGETS allows them', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const headers = await bearer({ scope: SCOPE })
  for (const url of LOCAL_TARGETS) {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url } })
    t.equal(res.statusCode, 201, url)
  }
})

t.test('a change of URL is checked the same way', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })
  const headers = await bearer({ scope: SCOPE })
  // No public name resolves in every test environment: the refusal is what is checked here.
  const res = await service.inject({ method: 'PATCH', url: '/api/v2/webhooks/0b7c1a5e-8f2d-4c3b-9a6e-1f2d3c4b5a69', headers, payload: { url: 'http://127.0.0.1/' } })
  t.match(res.json(), { status: 422, code: 'WebhookTargetRefused' })
})

t.test('the scheme is taken in any case, and the URL kept as URL parsing writes it', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const headers = await bearer({ scope: SCOPE })
  const created = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'HTTP://127.0.0.1:9/Hook' } })
  t.equal(created.statusCode, 201, created.body)
  const { id } = created.json()
  t.equal(created.json().url, 'http://127.0.0.1:9/Hook', 'the scheme in lower case, the path as sent')
  t.equal((await service.inject({ url: `/api/v2/webhooks/${id}`, headers })).json().url, 'http://127.0.0.1:9/Hook', 'and so it is stored')

  const changed = await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${id}`, headers, payload: { url: 'HtTpS://LocalHost:8443' } })
  t.equal(changed.statusCode, 200, changed.body)
  t.equal(changed.json().url, 'https://localhost:8443/', 'a change too')
  t.equal((await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${id}`, headers, payload: { ativo: false } })).json().url, 'https://localhost:8443/', 'a change without a URL keeps it')

  const other = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'FTP://example.com/' } })
  t.match(other.json(), { status: 400, code: 'ValidationFailed', errors: [{ field: '/url' }] }, 'another scheme is still refused')
})

t.test('a scheme in upper case does not pass a target that is not public', async t => {
  const service = await app(t)
  const headers = await bearer({ scope: SCOPE })
  const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'HTTP://127.0.0.1/hook' } })
  t.match(res.json(), { status: 422, code: 'WebhookTargetRefused' })
})

// On PostgreSQL the creations run in transactions side by side: only the lock keeps them to the cap.
for (const database of ['embedded', 'PostgreSQL'] as const) {
  t.test(`past WEBHOOK_MAX_SUBSCRIPTIONS a new subscription is refused, also when several arrive at once, on ${database}`, async t => {
    const databaseUrl = database === 'embedded' ? undefined : await freshPostgresDatabase(t)
    if (database === 'PostgreSQL' && databaseUrl === undefined) return
    const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_MAX_SUBSCRIPTIONS: '3', ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }) })
    const headers = await bearer({ scope: SCOPE })
    const create = async () => await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'http://127.0.0.1:9/hook' } })
    const answers = await Promise.all(Array.from({ length: 6 }, create))
    t.same(answers.map(answer => answer.statusCode).sort(), [201, 201, 201, 409, 409, 409], 'three made, three refused')
    const refused = answers.find(answer => answer.statusCode === 409)!
    t.match(refused.headers['content-type'], /^application\/problem\+json/)
    t.match(refused.json(), { status: 409, code: 'WebhookLimitReached' })
    const list = await service.inject({ url: '/api/v2/webhooks', headers })
    t.equal(list.json().items.length, 3, 'no more were kept')

    const [first] = list.json().items as Array<{ id: string }>
    t.equal((await service.inject({ method: 'DELETE', url: `/api/v2/webhooks/${first!.id}`, headers })).statusCode, 204)
    t.equal((await create()).statusCode, 201, 'one removed makes room for one')
  })
}

t.test('a subscription belongs to its creator: another client gets 404 for each of its routes, and webhooks:admin sees and manages all', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const ana = await bearer({ sub: 'ana', scope: SCOPE })
  const bruno = await bearer({ sub: 'bruno', scope: SCOPE })
  const admin = await bearer({ sub: 'operadora', scope: `${SCOPE} webhooks:admin` })
  const create = async (headers: { authorization: string }) => {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'http://127.0.0.1:9/hook' } })
    t.equal(res.statusCode, 201, res.body)
    return res.json() as { id: string, segredo: string }
  }
  const anas = await create(ana)
  const brunos = await create(bruno)
  const ids = async (headers: { authorization: string }) => (await service.inject({ url: '/api/v2/webhooks', headers })).json().items.map((item: { id: string }) => item.id)

  t.same(await ids(ana), [anas.id], 'a client lists its own subscriptions only')
  t.same(await ids(bruno), [brunos.id])
  t.same(await ids(admin), [anas.id, brunos.id], 'webhooks:admin lists every one')

  const path = `/api/v2/webhooks/${anas.id}`
  const others = [
    { method: 'GET' as const, url: path },
    { method: 'PATCH' as const, url: path, payload: { ativo: false } },
    { method: 'POST' as const, url: `${path}/rotacionar-segredo` },
    { method: 'GET' as const, url: `${path}/tentativas` },
    { method: 'DELETE' as const, url: path }
  ]
  for (const request of others) {
    const res = await service.inject({ ...request, headers: bruno })
    t.match(res.json(), { status: 404, code: 'NotFound' }, `${request.method} ${request.url} by another client`)
    t.notOk(res.body.includes('whsec_'), 'no secret in the answer')
  }
  t.match((await service.inject({ url: path, headers: ana })).json(), { id: anas.id, ativo: true }, 'nothing was changed or removed')

  t.equal((await service.inject({ url: path, headers: admin })).statusCode, 200, 'the admin reads it')
  t.match((await service.inject({ method: 'PATCH', url: path, headers: admin, payload: { ativo: false } })).json(), { ativo: false }, 'changes it')
  t.equal((await service.inject({ url: `${path}/tentativas`, headers: admin })).statusCode, 200, 'lists its attempts')
  t.match((await service.inject({ method: 'POST', url: `${path}/rotacionar-segredo`, headers: admin })).json(), { segredo: /^whsec_/ }, 'rotates its secret')
  t.equal((await service.inject({ method: 'DELETE', url: path, headers: admin })).statusCode, 204, 'and removes it')
  t.same(await ids(ana), [])
})

t.test('a subscription takes only the event types its creator may read', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const vagasReader = await bearer({ sub: 'vagas', scope: 'webhooks:write vagas:read' })
  const refused = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers: vagasReader, payload: { url: 'http://127.0.0.1:9/hook', tipos: ['vaga.criada', 'candidato.criado'] } })
  t.match(refused.json(), { status: 403, code: 'WebhookTypesForbidden', tipos: ['candidato.criado'] }, 'a candidato type without candidatos:read or eventos:read')
  t.match(refused.headers['content-type'], /^application\/problem\+json/)

  const created = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers: vagasReader, payload: { url: 'http://127.0.0.1:9/hook', tipos: ['vaga.criada'] } })
  t.equal(created.statusCode, 201, created.body)
  const patched = await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${created.json().id}`, headers: vagasReader, payload: { tipos: ['candidato.aprovar'] } })
  t.match(patched.json(), { status: 403, code: 'WebhookTypesForbidden', tipos: ['candidato.aprovar'] }, 'nor by a change')
  t.same((await service.inject({ url: `/api/v2/webhooks/${created.json().id}`, headers: vagasReader })).json().tipos, ['vaga.criada'], 'which changed nothing')

  const admin = await bearer({ sub: 'operadora', scope: `${SCOPE} webhooks:admin` })
  const byAdmin = await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${created.json().id}`, headers: admin, payload: { tipos: ['candidato.criado'] } })
  t.match(byAdmin.json(), { status: 403, code: 'WebhookTypesForbidden' }, 'what the creator may read decides, whoever changes it')

  const writerOnly = await bearer({ sub: 'escritor', scope: 'webhooks:write' })
  const nothing = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers: writerOnly, payload: { url: 'http://127.0.0.1:9/hook' } })
  t.match(nothing.json(), { status: 403, code: 'WebhookTypesForbidden' }, 'a creator who may read no event type gets no subscription')
})

t.test('a refused target gets one answer, whatever the cause', async t => {
  const service = await app(t)
  const headers = await bearer({ scope: SCOPE })
  const details = new Set<string>()
  for (const url of ['http://127.0.0.1/hook', 'http://localhost/hook', 'http://no-such-host.invalid/hook', 'http://[::1]/hook']) {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url } })
    t.match(res.json(), { status: 422, code: 'WebhookTargetRefused' }, url)
    details.add(res.json().detail)
  }
  t.same([...details], ['The webhook target is refused: not a public address, or it does not resolve.'], 'one detail, naming no address')
})

t.test('a target URL with a user name or password is refused', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const headers = await bearer({ scope: SCOPE })
  for (const url of ['http://user:secret@127.0.0.1:9/hook', 'https://user@127.0.0.1:9/hook', 'http://:secret@127.0.0.1:9/hook']) {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url } })
    t.match(res.json(), { status: 400, code: 'ValidationFailed', errors: [{ in: 'body', field: '/url', message: /user name or password/ }] }, url)
    t.notOk(res.body.includes('secret@'), 'the URL is not echoed')
  }
  const created = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'http://127.0.0.1:9/hook' } })
  const patched = await service.inject({ method: 'PATCH', url: `/api/v2/webhooks/${created.json().id}`, headers, payload: { url: 'http://user:secret@127.0.0.1:9/hook' } })
  t.match(patched.json(), { status: 400, code: 'ValidationFailed', errors: [{ field: '/url' }] }, 'nor by a change')
  t.same((await service.inject({ url: '/api/v2/webhooks', headers })).json().items.map((item: { url: string }) => item.url), ['http://127.0.0.1:9/hook'], 'none was stored')
})

t.test('the list is paged by cursor: each subscription once, with a default and a maximum limit', async t => {
  const service = await app(t, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  const headers = await bearer({ scope: SCOPE })
  const made: string[] = []
  for (let i = 0; i < 25; i++) {
    const res = await service.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: `http://127.0.0.1:9/hook-${i}` } })
    made.push(res.json().id)
  }
  const first = await service.inject({ url: '/api/v2/webhooks', headers })
  t.equal(first.json().items.length, 20, 'a page holds 20 by default')
  t.equal(first.json().limit, 20)

  const seen: string[] = []
  let next: string | undefined = '/api/v2/webhooks?limit=7'
  while (next !== undefined) {
    const res = await service.inject({ url: next, headers })
    t.equal(res.statusCode, 200, res.body)
    const page = res.json() as { items: Array<{ id: string }>, links: Array<{ rel: string, href: string }> }
    t.ok(page.items.length <= 7)
    seen.push(...page.items.map(item => item.id))
    next = page.links.find(link => link.rel === 'next')?.href
  }
  t.same(seen, made, 'every subscription exactly once, oldest first')

  t.match((await service.inject({ url: '/api/v2/webhooks?limit=101', headers })).json(), { status: 400, code: 'ValidationFailed' }, 'at most 100 a page')
  t.match((await service.inject({ url: '/api/v2/webhooks?cursor=bm9wZQ', headers })).json(), { status: 400, code: 'InvalidCursor' }, 'a cursor not issued here is refused')
})
