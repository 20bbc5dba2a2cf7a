// `atualizadoApos` on every collection: only the items changed after an instant, with the same
// paging, links and validators as any other filter.
import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { ALL_SCOPES, bearer, build } from '../../helper.ts'
import { eventually } from '../../support/eventually.ts'
import { freshPostgresDatabase } from '../../support/services.ts'

interface Item { id: string, atualizadoEm: string }
interface Page { items: Item[], total?: number, links: Array<{ rel: string, href: string }> }

async function changedAfterFilters (t: Test, env: Record<string, string>): Promise<void> {
  const app: FastifyInstance = await build(t, { env })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: ALL_SCOPES })
  const send = async <T>(method: 'POST' | 'PATCH', url: string, payload: object): Promise<T> => {
    const res = await app.inject({ method, url, headers, payload })
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const page = async (url: string): Promise<Page> => {
    const res = await app.inject({ url, headers })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json()
  }
  const ids = (items: Item[]) => items.map(item => item.id).sort()

  const [backend, frontend, dados] = [
    await send<Item>('POST', '/api/v2/vagas', { titulo: 'Backend' }),
    await send<Item>('POST', '/api/v2/vagas', { titulo: 'Frontend' }),
    await send<Item>('POST', '/api/v2/vagas', { titulo: 'Dados' })
  ]
  const [ana, bia, caio] = [
    await send<Item>('POST', '/api/v2/candidatos', { nome: 'Ana', email: 'ana@example.com' }),
    await send<Item>('POST', '/api/v2/candidatos', { nome: 'Bia', email: 'bia@example.com' }),
    await send<Item>('POST', '/api/v2/candidatos', { nome: 'Caio', email: 'caio@example.com' })
  ]
  await send('POST', `/api/v2/candidatos/${ana.id}/candidatar`, { vagaId: backend.id })
  const caioInscrito = await send<Item>('POST', `/api/v2/candidatos/${caio.id}/candidatar`, { vagaId: backend.id })
  // What an integration keeps: the newest `atualizadoEm` it has seen. Later changes are stamped later.
  const seen = [backend, frontend, dados, bia, caioInscrito].map(item => item.atualizadoEm).sort().at(-1)!
  const after = async (instant: string) => { await eventually(() => { assert.ok(Date.now() > Date.parse(instant) + 1, `the clock has passed ${instant}`) }) }
  await after(seen)
  const backendChanged = await send<Item>('PATCH', `/api/v2/vagas/${backend.id}`, { titulo: 'Backend sênior' })
  await after(backendChanged.atualizadoEm)
  const dadosChanged = await send<Item>('PATCH', `/api/v2/vagas/${dados.id}`, { descricao: 'SQL' })
  await send('POST', `/api/v2/candidatos/${ana.id}/aprovar`, {})
  const since = encodeURIComponent(seen)

  t.same(ids((await page(`/api/v2/vagas?atualizadoApos=${since}`)).items), ids([backendChanged, dadosChanged]), 'v2 vagas: the changed ones')
  const v1 = await page(`/api/v1/vagas?atualizadoApos=${since}`)
  t.equal(v1.total, 2, 'v1 counts the changed ones')
  t.same(ids((await page(`/api/v2/candidatos?atualizadoApos=${since}`)).items), [ana.id], 'candidatos: the one whose action came after')
  t.same(ids((await page(`/api/v1/vagas/${backend.id}/candidatos?atualizadoApos=${since}`)).items), [ana.id], 'a vaga\'s candidatos too')
  t.same((await page(`/api/v2/candidatos?atualizadoApos=${since}&vagaId=${backend.id}&status=inscrito`)).items, [], 'with the other filters')
  t.same((await page(`/api/v2/vagas?atualizadoApos=${encodeURIComponent(backendChanged.atualizadoEm)}&sort=atualizadoEm`)).items.map(item => item.id), [dadosChanged.id],
    'after an item\'s own instant: what changed after it, not the item again')

  // Paging keeps the filter, written the way the API writes instants.
  const offsetForm = encodeURIComponent(new Date(seen).toISOString().replace('Z', '+00:00'))
  const first = await page(`/api/v2/vagas?atualizadoApos=${offsetForm}&limit=1&sort=titulo`)
  const next = first.links.find(link => link.rel === 'next')
  t.ok(next?.href.includes(`atualizadoApos=${encodeURIComponent(seen)}`), `the next link carries the filter: ${next?.href}`)
  const second = await page(new URL(next!.href, 'http://localhost').pathname + new URL(next!.href, 'http://localhost').search)
  t.same([...first.items, ...second.items].map(item => item.id), [backendChanged.id, dadosChanged.id], 'by title, across two pages')
  t.notOk(second.links.some(link => link.rel === 'next'), 'and no third')

  t.same((await page(`/api/v2/candidatos?atualizadoApos=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).items, [], 'nothing changed in the future')
  for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-12-31T23:59:60Z', '2026-05-04']) {
    const res = await app.inject({ url: `/api/v2/vagas?atualizadoApos=${encodeURIComponent(bad)}`, headers })
    t.equal(res.statusCode, 400, `${bad}: 400`)
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'querystring', field: '/atualizadoApos' }] })
  }
}

// Instants the date-time format takes whose UTC year PostgreSQL cannot hold: year 0, or past 9999.
const OUT_OF_RANGE = ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00']
// The first and last instants it takes, written in UTC and with offsets.
const AT_THE_BOUNDS = ['0001-01-01T00:00:00Z', '0000-12-31T23:00:00-01:00', '9999-12-31T23:59:59.999Z', '9999-12-31T22:59:59.999-01:00']

// Other forms RFC 3339 takes, and the instant each names: JavaScript's own parser read the first as 2001.
const OTHER_FORMS = [['0001-01-01 00:00:00Z', '0001-01-01T00:00:00.000Z'], ['0049-06-01t00:00:00.5+01', '0049-05-31T23:00:00.500Z'], ['0050-01-01T00:00:00-0130', '0050-01-01T01:30:00.000Z']]

async function instantsAtTheEdges (t: Test, env: Record<string, string>): Promise<void> {
  const app: FastifyInstance = await build(t, { env })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: ALL_SCOPES })
  const created = await app.inject({ method: 'POST', url: '/api/v2/vagas', headers, payload: { titulo: 'Backend' } })
  assert.equal(created.statusCode, 201, created.body)
  const vagaId: string = created.json().id
  const lists = ['/vagas', '/candidatos', `/vagas/${vagaId}/candidatos`].flatMap(path => ['v1', 'v2'].map(version => `/api/${version}${path}`))

  for (const list of lists) {
    for (const instant of OUT_OF_RANGE) {
      const res = await app.inject({ url: `${list}?atualizadoApos=${encodeURIComponent(instant)}`, headers })
      t.equal(res.statusCode, 400, `${list} ${instant}: 400 (${res.body.slice(0, 120)})`)
      t.match(res.headers['content-type'], /^application\/problem\+json/)
      t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'querystring', field: '/atualizadoApos', message: /0001-01-01T00:00:00Z.*9999-12-31T23:59:59.999Z/ }] },
        `${list} ${instant}: says which instants are taken`)
    }
    for (const instant of AT_THE_BOUNDS) {
      const res = await app.inject({ url: `${list}?atualizadoApos=${encodeURIComponent(instant)}`, headers })
      t.equal(res.statusCode, 200, `${list} ${instant}: 200 (${res.body.slice(0, 120)})`)
    }
    for (const [written, instant] of OTHER_FORMS) {
      const res = await app.inject({ url: `${list}?atualizadoApos=${encodeURIComponent(written!)}`, headers })
      const self = (res.json() as Page).links.find(link => link.rel === 'self')?.href
      t.ok(self?.includes(`atualizadoApos=${encodeURIComponent(instant!)}`), `${list} ${written}: read as ${instant} (${self})`)
    }
  }
}

t.test('atualizadoApos on the embedded database', async t => { await changedAfterFilters(t, {}) })

t.test('atualizadoApos on PostgreSQL', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  await changedAfterFilters(t, { DATABASE_URL: url })
})

t.test('atualizadoApos outside the years 1 to 9999 is refused on every list, and every form is read as written, on the embedded database', async t => { await instantsAtTheEdges(t, {}) })

t.test('atualizadoApos outside the years 1 to 9999 is refused on every list, and every form is read as written, on PostgreSQL', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  await instantsAtTheEdges(t, { DATABASE_URL: url })
})
