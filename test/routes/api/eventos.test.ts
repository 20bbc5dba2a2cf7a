// GET /api/v2/eventos: one event per state change, with its actor, subject and representation; none
// for a refused write; cursor paging, filters, and 410 for a cursor older than the events kept.
import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ALL_SCOPES, bearer, build } from '../../helper.ts'
import { freshPostgresDatabase } from '../../support/services.ts'

interface Link { rel: string, href: string, method: string }
interface Evento { id: number, tipo: string, em: string, ator: string, sujeito: { tipo: string, id: string }, dados: Record<string, unknown> | null, links: Link[] }
interface Feed { items: Evento[], limit: number, links: Link[] }

function pathOf (href: string): string {
  const url = new URL(href, 'http://localhost')
  return url.pathname + url.search
}

async function feedScene (t: Test, env: Record<string, string>) {
  const app: FastifyInstance = await build(t, { env })
  await app.health.lifecycle.reached('serving')
  const alice = await bearer({ scope: ALL_SCOPES, sub: 'alice' })
  const bruno = await bearer({ scope: ALL_SCOPES, sub: 'bruno' })
  const reader = await bearer({ scope: 'eventos:read', sub: 'integrador' })
  const send = async (headers: object, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object, extra: object = {}): Promise<LightMyRequestResponse> =>
    await app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload !== undefined && { payload }) })
  const ok = async (headers: object, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object): Promise<any> => {
    const res = await send(headers, method, url, payload)
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.statusCode === 204 ? undefined : res.json()
  }
  const feed = async (url = '/api/v2/eventos?limit=100'): Promise<Feed> => {
    const res = await app.inject({ url, headers: reader })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json()
  }
  /** Every event from the start, following `next` until a page is not full. */
  const all = async (query = 'limit=100'): Promise<Evento[]> => {
    const events: Evento[] = []
    let page = await feed(`/api/v2/eventos?${query}`)
    for (;;) {
      events.push(...page.items)
      if (page.items.length < page.limit) return events
      page = await feed(pathOf(page.links.find(link => link.rel === 'next')!.href))
    }
  }
  return { app, alice, bruno, reader, send, ok, feed, all }
}

async function everyChange (t: Test, env: Record<string, string>): Promise<void> {
  const { app, alice, bruno, ok, all } = await feedScene(t, env)
  const a = await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Backend' })
  const b = await ok(bruno, 'POST', '/api/v2/vagas', { titulo: 'Frontend' })
  const aChanged = await ok(bruno, 'PATCH', `/api/v2/vagas/${a.id}`, { descricao: 'Node.js' })
  const c = await ok(alice, 'POST', '/api/v2/candidatos', { nome: 'Caio', email: 'caio@example.com' })
  const cChanged = await ok(alice, 'PUT', `/api/v2/candidatos/${c.id}`, { nome: 'Caio Lima', email: 'caio@example.com' })
  const calls: Array<[string, string, object?]> = [
    ['POST', 'candidatar', { vagaId: a.id }], ['POST', 'aprovar'], ['DELETE', 'aprovar'], ['POST', 'reprovar'], ['DELETE', 'reprovar'],
    ['POST', 'transferir', { vagaId: b.id }], ['DELETE', 'transferir'], ['POST', 'transferir', { vagaId: b.id }]
  ]
  const acted = []
  for (const [method, action, payload] of calls) acted.push(await ok(bruno, method as 'POST', `/api/v2/candidatos/${c.id}/${action}`, payload ?? {}))
  // Caio came from A: removing A ends his way back, a change of his too.
  await ok(alice, 'DELETE', `/api/v2/vagas/${a.id}`)
  const d = await ok(alice, 'POST', '/api/v2/candidatos', { nome: 'Dora', email: 'dora@example.com' })
  await ok(alice, 'DELETE', `/api/v2/candidatos/${d.id}`)

  const events = await all()
  t.same(events.map(event => [event.tipo, event.ator, event.sujeito.id]), [
    ['vaga.criada', 'alice', a.id],
    ['vaga.criada', 'bruno', b.id],
    ['vaga.alterada', 'bruno', a.id],
    ['candidato.criado', 'alice', c.id],
    ['candidato.alterado', 'alice', c.id],
    ['candidato.candidatar', 'bruno', c.id],
    ['candidato.aprovar', 'bruno', c.id],
    ['candidato.aprovar.cancelado', 'bruno', c.id],
    ['candidato.reprovar', 'bruno', c.id],
    ['candidato.reprovar.cancelado', 'bruno', c.id],
    ['candidato.transferir', 'bruno', c.id],
    ['candidato.transferir.cancelado', 'bruno', c.id],
    ['candidato.transferir', 'bruno', c.id],
    ['vaga.removida', 'alice', a.id],
    ['candidato.alterado', 'alice', c.id],
    ['candidato.criado', 'alice', d.id],
    ['candidato.removido', 'alice', d.id]
  ], 'every change, in order, with who made it')
  t.ok(events.every((event, i) => i === 0 || event.id > events[i - 1]!.id), 'ids grow')
  t.ok(events.every(event => !Number.isNaN(Date.parse(event.em))), 'each says when')

  const [created, , changed] = events
  t.same(created!.sujeito, { tipo: 'vaga', id: a.id })
  t.same(created!.links, [{ rel: 'vaga', href: `/api/v2/vagas/${a.id}`, method: 'GET' }], 'a link to the subject, in 2.0')
  t.same(created!.dados, a, 'the vaga as created, as the API wrote it')
  t.same(changed!.dados, aChanged, 'the vaga as changed')

  const withoutHistorico = ({ historico: _historico, ...candidato }: Record<string, unknown>) => candidato
  const caioNow = withoutHistorico((await app.inject({ url: `/api/v2/candidatos/${c.id}`, headers: alice })).json())
  t.same(events[14]!.dados, caioNow, 'a candidato as the API writes it in 2.0, without its history')
  t.same((await all(`sujeitoId=${c.id}`)).at(-1), events[14], 'the latest of his')
  t.same(events[15]!.dados, withoutHistorico(d), 'a candidato as created, as the API wrote it')
  // A cancellation answers 204: the others answer the candidato, as its event must hold it.
  const answered = [c, cChanged, ...acted].map((body, i) => [events[3 + i]!.dados, body]).filter(([, body]) => body !== undefined)
  t.equal(answered.length, 7)
  t.same(answered.map(([dados]) => dados), answered.map(([, body]) => withoutHistorico(body)), 'each change of his as the API answered it, its vaga included')
  t.match(events[12]!.dados, { status: 'inscrito', vaga: { id: b.id, titulo: 'Frontend' }, transferidoDe: a.id }, 'after the transfer')
  t.match(events[14]!.dados, { vaga: { id: b.id }, transferidoDe: null }, 'after A was removed')
  t.equal(events[13]!.dados, null, 'a removal carries no representation')
  t.same(events[13]!.links, [{ rel: 'vaga', href: `/api/v2/vagas/${a.id}`, method: 'GET' }])
  t.same(events[16]!.links, [{ rel: 'candidato', href: `/api/v2/candidatos/${d.id}`, method: 'GET' }])
}

async function refusedWrites (t: Test, env: Record<string, string>): Promise<void> {
  const { alice, send, ok, all } = await feedScene(t, env)
  const vaga = await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Backend' })
  const fechada = await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Fechada', status: 'fechada' })
  const ana = await ok(alice, 'POST', '/api/v2/candidatos', { nome: 'Ana', email: 'ana@example.com' })
  const bia = await ok(alice, 'POST', '/api/v2/candidatos', { nome: 'Bia', email: 'bia@example.com' })
  await ok(alice, 'POST', `/api/v2/candidatos/${bia.id}/candidatar`, { vagaId: vaga.id })
  const before = await all()

  const refusals: Array<[number, Promise<LightMyRequestResponse>]> = [
    [409, send(alice, 'POST', `/api/v2/candidatos/${ana.id}/aprovar`, {})],
    [409, send(alice, 'POST', `/api/v2/candidatos/${ana.id}/candidatar`, { vagaId: fechada.id })],
    [422, send(alice, 'POST', `/api/v2/candidatos/${ana.id}/candidatar`, { vagaId: '00000000-0000-4000-8000-000000000000' })],
    [400, send(alice, 'POST', '/api/v2/vagas', { titulo: 42 })],
    [400, send(alice, 'PATCH', `/api/v2/candidatos/${ana.id}`, {})],
    [409, send(alice, 'POST', '/api/v2/candidatos', { nome: 'Outra Ana', email: 'ANA@example.com' })],
    [409, send(alice, 'PATCH', `/api/v2/candidatos/${ana.id}`, { email: 'bia@example.com' })],
    [409, send(alice, 'DELETE', `/api/v2/vagas/${vaga.id}`)],
    [412, send(alice, 'PATCH', `/api/v2/vagas/${vaga.id}`, { titulo: 'Outro' }, { 'if-match': '"2.0-99"' })],
    [412, send(alice, 'DELETE', `/api/v2/candidatos/${ana.id}`, undefined, { 'if-match': '"2.0-99-0"' })],
    [404, send(alice, 'DELETE', '/api/v2/vagas/00000000-0000-4000-8000-000000000000')]
  ]
  for (const [status, answer] of refusals) {
    const res = await answer
    t.equal(res.statusCode, status, `${res.statusCode}: ${res.body.slice(0, 80)}`)
  }
  t.same(await all(), before, 'no event for a refused write')
}

async function pagingAndFilters (t: Test, env: Record<string, string>): Promise<void> {
  const { app, alice, reader, ok, feed, all } = await feedScene(t, env)
  const vagas = []
  for (const titulo of ['Um', 'Dois', 'Três', 'Quatro', 'Cinco']) vagas.push(await ok(alice, 'POST', '/api/v2/vagas', { titulo }))
  const ana = await ok(alice, 'POST', '/api/v2/candidatos', { nome: 'Ana', email: 'ana@example.com' })
  await ok(alice, 'POST', `/api/v2/candidatos/${ana.id}/candidatar`, { vagaId: vagas[0].id })
  await ok(alice, 'PATCH', `/api/v2/vagas/${vagas[1].id}`, { status: 'fechada' })
  const everything = await all()
  t.equal(everything.length, 8)

  const first = await feed('/api/v2/eventos?limit=3')
  t.same(first.items.map(event => event.id), everything.slice(0, 3).map(event => event.id), 'a page of three')
  const second = await feed(pathOf(first.links.find(link => link.rel === 'next')!.href))
  const third = await feed(pathOf(second.links.find(link => link.rel === 'next')!.href))
  t.same([...second.items, ...third.items].map(event => event.id), everything.slice(3).map(event => event.id), 'the rest, across pages')
  const caughtUp = third.links.find(link => link.rel === 'next')!
  t.match(caughtUp.href, /^\/api\/v2\/eventos\?limit=3&cursor=[A-Za-z0-9_-]+$/, 'a next link to poll, always')
  t.same((await feed(pathOf(caughtUp.href))).items, [], 'nothing new yet')
  const later = await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Seis' })
  t.match((await feed(pathOf(caughtUp.href))).items, [{ tipo: 'vaga.criada', sujeito: { id: later.id } }], 'then the next change, once')

  t.same((await all('tipo=vaga.criada&limit=2')).map(event => event.sujeito.id), [...vagas, later].map(vaga => vaga.id), 'by type, across pages')
  t.same((await all(`sujeitoId=${ana.id}`)).map(event => event.tipo), ['candidato.criado', 'candidato.candidatar'], 'by subject')
  t.same((await all(`sujeitoId=${vagas[1].id}&tipo=vaga.alterada`)).map(event => event.dados?.status), ['fechada'], 'both')
  const filtered = await feed('/api/v2/eventos?tipo=vaga.alterada')
  t.match(filtered.links.find(link => link.rel === 'next')!.href, /tipo=vaga.alterada/, 'the next link keeps the filter')
  const foreign = await app.inject({ url: pathOf(filtered.links.find(link => link.rel === 'next')!.href.replace('tipo=vaga.alterada', 'tipo=vaga.criada')), headers: reader })
  t.equal(foreign.statusCode, 400)
  t.match(foreign.json(), { code: 'InvalidCursor' }, 'a cursor is bound to its filters')
  for (const bad of ['not-a-cursor', Buffer.from('{"b":"x","v":[],"id":"1"}').toString('base64url')]) {
    t.match((await app.inject({ url: `/api/v2/eventos?cursor=${bad}`, headers: reader })).json(), { status: 400, code: 'InvalidCursor' })
  }
  t.match((await app.inject({ url: '/api/v2/eventos?tipo=vaga.explodida', headers: reader })).json(), { status: 400, code: 'ValidationFailed' })
}

async function retention (t: Test, env: Record<string, string>): Promise<void> {
  const { app, alice, reader, ok, feed } = await feedScene(t, { ...env, EVENT_RETENTION_HOURS: '24' })
  await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Antiga' })
  const start = await feed('/api/v2/eventos?limit=1')
  const afterFirst = pathOf(start.links.find(link => link.rel === 'next')!.href)
  await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Também antiga' })
  await ok(alice, 'POST', '/api/v2/vagas', { titulo: 'Nova' })
  t.equal(await app.repositories.eventos.purgeExpired(), 0, 'nothing is older than the retention yet')
  // The two older events are aged past the retention, as a day and more going by would.
  await sql`update eventos set em = em - interval '25 hours' where ordem in (select ordem from eventos order by ordem limit 2)`.execute(app.storage.db)
  t.equal(await app.repositories.eventos.purgeExpired(), 2, 'the purge removes them')

  const expired = await app.inject({ url: afterFirst, headers: reader })
  t.equal(expired.statusCode, 410, 'a cursor before a removed event')
  t.match(expired.headers['content-type'], /^application\/problem\+json/)
  t.match(expired.json(), { status: 410, code: 'CursorExpired', type: 'urn:problem-type:recrutamento:CursorExpired', detail: /EVENT_RETENTION_HOURS/ })
  const fresh = await feed()
  t.match(fresh.items, [{ dados: { titulo: 'Nova' } }], 'without a cursor: from the oldest event kept')
  t.same((await feed(pathOf(fresh.links.find(link => link.rel === 'next')!.href))).items, [], 'and its cursor goes on')
}

async function access (t: Test): Promise<void> {
  const { app, alice, reader } = await feedScene(t, {})
  t.equal((await app.inject({ url: '/api/v2/eventos' })).statusCode, 401, 'a token is required')
  t.match((await app.inject({ url: '/api/v2/eventos', headers: alice })).json(), { status: 403, code: 'InsufficientScope' }, 'eventos:read is')
  t.match((await app.inject({ url: '/api/v1/eventos', headers: reader })).json(), { status: 400, code: 'UnsupportedApiVersion', supportedVersions: ['2.0'] }, 'not in 1.0')
  t.match((await app.inject({ url: '/api/eventos', headers: { ...reader, 'x-api-version': '2.0' } })).json(), { items: [] }, 'in 2.0 by header too')
}

const suites: Array<[string, (t: Test, env: Record<string, string>) => Promise<void>]> = [
  ['every state change writes one event', everyChange],
  ['a refused write writes none', refusedWrites],
  ['paging and filters', pagingAndFilters],
  ['retention: 410 for a cursor older than the events kept', retention]
]
for (const [name, suite] of suites) {
  t.test(`${name}, on the embedded database`, async t => { await suite(t, {}) })
  t.test(`${name}, on PostgreSQL`, async t => {
    const url = await freshPostgresDatabase(t)
    if (url === undefined) return
    await suite(t, { DATABASE_URL: url })
  })
}
t.test('the feed needs eventos:read and API 2.0', access)
