import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { bearer, build, buildServing } from '../../helper.ts'
import { freshPostgresDatabase } from '../../support/services.ts'

interface Link { rel: string, href: string, method: string }

const ready = async (t: Parameters<typeof build>[0], env: Record<string, string> = {}) => await buildServing(t, { env })

async function newVaga (app: FastifyInstance, auth: Record<string, string>, titulo: string, status = 'aberta'): Promise<{ id: string }> {
  return (await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: { titulo, status } })).json()
}

async function newCandidato (app: FastifyInstance, auth: Record<string, string>, nome: string): Promise<{ id: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome, email: `${nome.toLowerCase()}@example.com` } })
  if (res.statusCode !== 201) throw new Error(res.body)
  return res.json()
}

/** The action links of a representation as "METHOD rel". */
function actionLinks (links: Link[]): string[] {
  return links.filter(link => !['self', 'edit', 'vaga'].includes(link.rel)).map(link => `${link.method} ${link.rel}`)
}

t.test('register, read, conditional read, replace, patch, remove; unique e-mail in any case', async t => {
  const { app, auth } = await ready(t)
  const created = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Ana Souza', email: 'Ana@Example.com' } })
  t.equal(created.statusCode, 201)
  const ana = created.json()
  t.match(ana, { nome: 'Ana Souza', email: 'Ana@Example.com', status: 'cadastrado', vagaId: null, transferidoDe: null, historico: [] })
  t.equal(created.headers.location, `/api/v1/candidatos/${ana.id}`)
  t.same(ana.links, [
    { rel: 'self', href: `/api/v1/candidatos/${ana.id}`, method: 'GET' },
    { rel: 'edit', href: `/api/v1/candidatos/${ana.id}`, method: 'PUT' },
    { rel: 'edit', href: `/api/v1/candidatos/${ana.id}`, method: 'PATCH' },
    { rel: 'candidatar', href: `/api/v1/candidatos/${ana.id}/candidatar`, method: 'POST' }
  ])

  const dup = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Outra', email: 'ana@EXAMPLE.COM' } })
  t.equal(dup.statusCode, 409)
  t.match(dup.json(), { code: 'DuplicateEmail' })

  const read = await app.inject({ url: `/api/v1/candidatos/${ana.id}`, headers: auth })
  t.equal(read.statusCode, 200)
  t.same(read.json(), ana)
  t.equal(read.headers['cache-control'], 'private, no-cache', 'a client may keep it and revalidates it before each use')
  const etag = read.headers.etag as string
  const notModified = await app.inject({ url: `/api/v1/candidatos/${ana.id}`, headers: { ...auth, 'if-none-match': `"x", ${etag}` } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers['cache-control'], 'private, no-cache', 'the 304 carries the headers the 200 would')
  t.equal((await app.inject({ url: `/api/v1/candidatos/${ana.id}`, headers: { ...auth, 'if-modified-since': read.headers['last-modified'] as string } })).statusCode, 304)

  for (const email of ['\uff41\uff4e\uff41@example.com', 'ANA@EXAMPLE.COM']) {
    const again = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Outra', email } })
    t.equal(again.statusCode, 409, `${email} is Ana's address`)
  }
  const invisible = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Outra', email: 'an\u200ba@example.com' } })
  t.equal(invisible.statusCode, 400, 'a zero-width space would make a look-alike address')
  t.match(invisible.json(), { errors: [{ field: '/email' }] })

  const bia = await newCandidato(app, auth, 'Bia')
  const taken = await app.inject({ method: 'PATCH', url: `/api/v1/candidatos/${bia.id}`, headers: auth, payload: { email: 'ANA@example.com' } })
  t.equal(taken.statusCode, 409)
  t.match(taken.json(), { code: 'DuplicateEmail' })

  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/candidatos/${ana.id}`, headers: { ...auth, 'if-match': '"1.0-7"' }, payload: { nome: 'X', email: 'x@example.com' } })).statusCode, 412)
  const replaced = await app.inject({ method: 'PUT', url: `/api/v1/candidatos/${ana.id}`, headers: { ...auth, 'if-match': etag }, payload: { nome: 'Ana S.', email: 'ana.s@example.com' } })
  t.equal(replaced.statusCode, 200)
  t.match(replaced.json(), { nome: 'Ana S.', email: 'ana.s@example.com', status: 'cadastrado' })
  const patched = await app.inject({ method: 'PATCH', url: `/api/v1/candidatos/${ana.id}`, headers: auth, payload: { nome: 'Ana' } })
  t.match(patched.json(), { nome: 'Ana', email: 'ana.s@example.com' })
  for (const payload of [{ status: 'aprovado' }, { vagaId: bia.id }, { nome: 'A', email: 'no-at-sign' }, { nome: 7 }, { email: ['a@b.co'] }, {}, { nome: 'nul\u0000' }, { email: 'a\u0000@example.com' }, { nome: 'x'.repeat(201) }, { nome: { $gt: '' } }]) {
    const res = await app.inject({ method: 'PATCH', url: `/api/v1/candidatos/${ana.id}`, headers: auth, payload })
    t.equal(res.statusCode, 400, `PATCH ${JSON.stringify(payload)}: status and vaga change only through actions`)
  }
  t.equal((await app.inject({ url: `/api/v1/candidatos/${ana.id}`, headers: auth })).json().nome, 'Ana', 'refused changes left nothing')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/candidatos/${ana.id}`, headers: { ...auth, 'if-match': etag } })).statusCode, 412)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/candidatos/${ana.id}`, headers: auth })).statusCode, 204)
  t.equal((await app.inject({ url: `/api/v1/candidatos/${ana.id}`, headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Ana', email: 'ana@example.com' } })).statusCode, 201, 'the address is free again')
})

t.test('every action through HTTP: transitions, refusals naming state and allowed actions, links per state, history', async t => {
  const { app, auth } = await ready(t)
  const a = await newVaga(app, auth, 'Vaga A')
  const b = await newVaga(app, auth, 'Vaga B')
  const closed = await newVaga(app, auth, 'Fechada', 'fechada')
  const c = await newCandidato(app, auth, 'Caio')
  const url = (action: string) => `/api/v2/candidatos/${c.id}/${action}`
  const act = (method: 'POST' | 'DELETE', action: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({ method, url: url(action), headers: { ...auth, ...headers }, ...(payload !== undefined && { payload }) })

  const refusedFromCadastrado = await act('POST', 'aprovar')
  t.equal(refusedFromCadastrado.statusCode, 409)
  t.match(refusedFromCadastrado.json(), {
    code: 'ActionNotAllowed',
    currentStatus: 'cadastrado',
    allowedActions: [{ action: 'candidatar', method: 'POST' }],
    detail: /cadastrado.*POST candidatar/
  })
  t.equal((await act('DELETE', 'aprovar')).statusCode, 409)
  t.equal((await act('DELETE', 'transferir')).statusCode, 409)
  t.equal((await act('POST', 'transferir', { vagaId: b.id })).statusCode, 409)

  t.equal((await act('POST', 'candidatar', {})).statusCode, 400, 'candidatar needs vagaId')
  t.equal((await act('POST', 'candidatar', { vagaId: 'abc' })).statusCode, 400)
  t.equal((await act('POST', 'candidatar', { vagaId: a.id, extra: true })).statusCode, 400)
  const missing = await act('POST', 'candidatar', { vagaId: '00000000-0000-4000-8000-000000000000' })
  t.equal(missing.statusCode, 422)
  t.match(missing.json(), { code: 'VagaNotFound' })
  const intoClosed = await act('POST', 'candidatar', { vagaId: closed.id })
  t.equal(intoClosed.statusCode, 409)
  t.match(intoClosed.json(), { code: 'VagaFechada' })

  const applied = await act('POST', 'candidatar', { vagaId: a.id })
  t.equal(applied.statusCode, 200)
  const inscrito = applied.json()
  t.match(inscrito, { status: 'inscrito', vaga: { id: a.id, titulo: 'Vaga A', status: 'aberta' }, transferidoDe: null })
  t.same(actionLinks(inscrito.links), ['POST aprovar', 'POST reprovar', 'POST transferir'])
  t.ok(inscrito.links.some((l: Link) => l.rel === 'vaga' && l.href === `/api/v2/vagas/${a.id}` && l.method === 'GET'))
  t.ok(applied.headers.etag)

  const again = await act('POST', 'candidatar', { vagaId: b.id })
  t.equal(again.statusCode, 409)
  t.match(again.json(), { currentStatus: 'inscrito', allowedActions: [{ action: 'aprovar', method: 'POST' }, { action: 'reprovar', method: 'POST' }, { action: 'transferir', method: 'POST' }] })
  t.match((await act('POST', 'transferir', { vagaId: a.id })).json(), { code: 'SameVaga' })
  t.match((await act('POST', 'transferir', { vagaId: closed.id })).json(), { code: 'VagaFechada' })

  const transferred = await act('POST', 'transferir', { vagaId: b.id })
  t.equal(transferred.statusCode, 200)
  t.match(transferred.json(), { status: 'inscrito', vaga: { id: b.id }, transferidoDe: a.id })
  t.same(actionLinks(transferred.json().links), ['POST aprovar', 'POST reprovar', 'POST transferir', 'DELETE transferir'])

  t.equal((await act('POST', 'aprovar', undefined, { 'if-match': applied.headers.etag as string })).statusCode, 412, 'If-Match on an action')
  const aprovado = await act('POST', 'aprovar', undefined, { 'if-match': transferred.headers.etag as string })
  t.equal(aprovado.statusCode, 200)
  t.match(aprovado.json(), { status: 'aprovado' })
  t.same(actionLinks(aprovado.json().links), ['DELETE aprovar'], 'once aprovado only the cancel link remains')
  const refusedFromAprovado = await act('POST', 'reprovar')
  t.match(refusedFromAprovado.json(), { code: 'ActionNotAllowed', currentStatus: 'aprovado', allowedActions: [{ action: 'aprovar', method: 'DELETE' }] })
  t.equal((await act('DELETE', 'transferir')).statusCode, 409, 'a transfer cannot be cancelled once aprovado')

  const cancelled = await act('DELETE', 'aprovar')
  t.equal(cancelled.statusCode, 204)
  t.equal(cancelled.body, '')
  const reprovado = await act('POST', 'reprovar')
  t.same(actionLinks(reprovado.json().links), ['DELETE reprovar'])
  t.equal((await act('DELETE', 'reprovar')).statusCode, 204)
  t.equal((await act('DELETE', 'transferir')).statusCode, 204)

  const final = await app.inject({ url: `/api/v1/candidatos/${c.id}`, headers: auth })
  const body = final.json()
  t.match(body, { status: 'inscrito', vagaId: a.id, transferidoDe: null })
  t.notOk('vaga' in body, 'v1 names the vaga by id only')
  t.same(actionLinks(body.links), ['POST aprovar', 'POST reprovar', 'POST transferir'])
  t.same(body.historico.map((h: { metodo: string, acao: string, status: string, ator: string }) => `${h.metodo} ${h.acao} -> ${h.status} by ${h.ator}`), [
    'POST candidatar -> inscrito by recrutadora-1',
    'POST transferir -> inscrito by recrutadora-1',
    'POST aprovar -> aprovado by recrutadora-1',
    'DELETE aprovar -> inscrito by recrutadora-1',
    'POST reprovar -> reprovado by recrutadora-1',
    'DELETE reprovar -> inscrito by recrutadora-1',
    'DELETE transferir -> inscrito by recrutadora-1'
  ], 'the history names the caller of every action')

  t.equal((await app.inject({ method: 'POST', url: '/api/v1/candidatos/00000000-0000-4000-8000-000000000000/aprovar', headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/candidatos/NOT-AN-ID/aprovar', headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/candidatos/${c.id}/candidatar`, headers: auth })).statusCode, 405, 'candidatar has no cancel')
  const reader = await bearer({ scope: 'candidatos:read vagas:read' })
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/aprovar`, headers: reader })).statusCode, 403)
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/aprovar` })).statusCode, 401)
})

t.test('v2 embeds the vaga, and its ETag follows changes of that vaga', async t => {
  const { app, auth } = await ready(t)
  const vaga = await newVaga(app, auth, 'Original')
  const c = await newCandidato(app, auth, 'Duda')
  await app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/candidatar`, headers: auth, payload: { vagaId: vaga.id } })
  const before = await app.inject({ url: `/api/v2/candidatos/${c.id}`, headers: auth })
  t.match(before.json().vaga, { titulo: 'Original' })
  const v1Before = await app.inject({ url: `/api/v1/candidatos/${c.id}`, headers: auth })
  await app.inject({ method: 'PATCH', url: `/api/v1/vagas/${vaga.id}`, headers: auth, payload: { titulo: 'Renomeada' } })
  const after = await app.inject({ url: `/api/v2/candidatos/${c.id}`, headers: { ...auth, 'if-none-match': before.headers.etag as string } })
  t.equal(after.statusCode, 200, 'the embedded vaga changed, so the v2 representation did')
  t.match(after.json().vaga, { titulo: 'Renomeada' })
  t.equal((await app.inject({ url: `/api/v1/candidatos/${c.id}`, headers: { ...auth, 'if-none-match': v1Before.headers.etag as string } })).statusCode, 304, 'v1 did not change')
})

t.test('lists of candidatos: filters, sorts, paging in both versions', async t => {
  const { app, auth } = await ready(t)
  const vaga = await newVaga(app, auth, 'Lista')
  const names = ['Ana', 'Bruno', 'Carla', 'Daniel', 'Elisa']
  for (const [i, nome] of names.entries()) {
    const c = await newCandidato(app, auth, nome)
    if (i % 2 === 0) await app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/candidatar`, headers: auth, payload: { vagaId: vaga.id } })
  }
  const inscritos = (await app.inject({ url: `/api/v1/candidatos?status=inscrito&vagaId=${vaga.id}&sort=-nome`, headers: auth })).json()
  t.same(inscritos.items.map((c: { nome: string }) => c.nome), ['Elisa', 'Carla', 'Ana'])
  t.equal(inscritos.total, 3)
  t.same((await app.inject({ url: '/api/v1/candidatos?q=DAN', headers: auth })).json().items.map((c: { nome: string }) => c.nome), ['Daniel'])
  t.same((await app.inject({ url: '/api/v1/candidatos?q=bruno@', headers: auth })).json().items.map((c: { nome: string }) => c.nome), ['Bruno'], 'q matches the start of the e-mail too')
  t.equal((await app.inject({ url: '/api/v1/candidatos?vagaId=abc', headers: auth })).statusCode, 400)
  t.equal((await app.inject({ url: '/api/v1/candidatos?sort=senha', headers: auth })).statusCode, 400)

  const byCursor: string[] = []
  let next: string | undefined = '/api/v2/candidatos?sort=nome&limit=2'
  while (next !== undefined) {
    const page: { items: Array<{ nome: string }>, links: Link[] } = (await app.inject({ url: next, headers: auth })).json()
    byCursor.push(...page.items.map(c => c.nome))
    next = page.links.find(l => l.rel === 'next')?.href
  }
  t.same(byCursor, names)
  const newest = (await app.inject({ url: '/api/v2/candidatos?limit=1', headers: auth })).json()
  t.equal(newest.items[0].nome, 'Elisa', 'newest first by default')
})

t.test('Idempotency-Key on POST /candidatos', async t => {
  const { app, auth } = await ready(t)
  const send = (payload: object) => app.inject({ method: 'POST', url: '/api/v2/candidatos', headers: { ...auth, 'idempotency-key': 'cand-1' }, payload })
  const first = await send({ nome: 'Eva', email: 'eva@example.com' })
  const retry = await send({ email: 'eva@example.com', nome: 'Eva' })
  t.equal(first.statusCode, 201)
  t.equal(retry.statusCode, 201, 'not a duplicate e-mail: the first answer again')
  t.equal(retry.body, first.body)
  t.equal(retry.headers['idempotent-replayed'], 'true')
  t.equal((await send({ nome: 'Eva', email: 'eva2@example.com' })).statusCode, 422)
  t.equal((await app.inject({ url: '/api/v1/candidatos', headers: auth })).json().total, 1)
})

t.test('concurrent aprovar and reprovar over HTTP on PostgreSQL: one 200, the rest 409', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const { app, auth } = await ready(t, { DATABASE_URL: url })
  const vaga = await newVaga(app, auth, 'Concorrida')
  const c = await newCandidato(app, auth, 'Fabi')
  await app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/candidatar`, headers: auth, payload: { vagaId: vaga.id } })
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    app.inject({ method: 'POST', url: `/api/v1/candidatos/${c.id}/${i % 2 === 0 ? 'aprovar' : 'reprovar'}`, headers: auth })))
  t.equal(answers.filter(a => a.statusCode === 200).length, 1)
  t.equal(answers.filter(a => a.statusCode === 409).length, 9)
  const winner = answers.find(a => a.statusCode === 200)!.json()
  const stored = (await app.inject({ url: `/api/v1/candidatos/${c.id}`, headers: auth })).json()
  t.equal(stored.status, winner.status)
  t.equal(stored.historico.length, 2)
})

t.test('a repeated read answers the same bytes, a change shows at once, and each version and media type keeps its own', async t => {
  const { app, auth } = await ready(t)
  const vaga = await newVaga(app, auth, 'Suporte')
  const c = await newCandidato(app, auth, 'Caio')
  const url = `/api/v1/candidatos/${c.id}`
  const first = await app.inject({ url, headers: auth })
  const again = await app.inject({ url, headers: auth })
  t.equal(again.body, first.body)
  t.equal(again.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(again.headers['content-length'], String(Buffer.byteLength(first.body)))
  const head = await app.inject({ method: 'HEAD', url, headers: auth })
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], again.headers['content-length'])

  const vendor = await app.inject({ url, headers: { ...auth, accept: 'application/vnd.recrutamento-v1+json' } })
  t.equal(vendor.headers['content-type'], 'application/vnd.recrutamento-v1+json; charset=utf-8', 'the vendor media type asked for')
  t.equal(vendor.body, first.body)
  const v2 = await app.inject({ url: `/api/v2/candidatos/${c.id}`, headers: auth })
  t.equal(v2.json().vaga, null)
  t.equal(v2.json().links[0].href, `/api/v2/candidatos/${c.id}`, 'the 2.0 representation, not the 1.0 one kept for the same candidato')

  t.equal((await app.inject({ method: 'PATCH', url, headers: auth, payload: { nome: 'Caio Lima' } })).statusCode, 200)
  const renamed = await app.inject({ url, headers: auth })
  t.equal(renamed.json().nome, 'Caio Lima')
  t.not(renamed.headers.etag, first.headers.etag)
  t.equal((await app.inject({ method: 'POST', url: `${url}/candidatar`, headers: auth, payload: { vagaId: vaga.id } })).statusCode, 200)
  t.equal((await app.inject({ method: 'PATCH', url: `/api/v1/vagas/${vaga.id}`, headers: auth, payload: { titulo: 'Suporte N2' } })).statusCode, 200)
  t.equal((await app.inject({ url: `/api/v2/candidatos/${c.id}`, headers: auth })).json().vaga.titulo, 'Suporte N2', 'a change of the embedded vaga shows too')
})
