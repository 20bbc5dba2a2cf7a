import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { ALL_SCOPES, bearer, build } from '../../helper.ts'
import { freshPostgresDatabase } from '../../support/services.ts'

type Headers = Record<string, string>

async function json<T> (app: FastifyInstance, method: 'POST' | 'PATCH', url: string, headers: Headers, payload: object): Promise<T> {
  const res = await app.inject({ method, url, headers, payload })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** A page answers with a weak ETag; If-None-Match with it answers 304 with no body until the page changes. */
async function pagesAreValidated (t: Test, env: Record<string, string>): Promise<void> {
  const app = await build(t, { env })
  await app.health.lifecycle.reached('serving')
  const auth = await bearer({ scope: ALL_SCOPES, sub: 'recrutadora-1' })
  const vaga = await json<{ id: string }>(app, 'POST', '/api/v1/vagas', auth, { titulo: 'Validada', status: 'aberta' })
  const ana = await json<{ id: string }>(app, 'POST', '/api/v1/candidatos', auth, { nome: 'Ana', email: 'ana@example.com' })
  await json(app, 'POST', `/api/v1/candidatos/${ana.id}/candidatar`, auth, { vagaId: vaga.id })

  const lists = [
    `/api/v1/candidatos?vagaId=${vaga.id}`,
    `/api/v2/candidatos?vagaId=${vaga.id}`,
    `/api/v1/vagas/${vaga.id}/candidatos`,
    `/api/v2/vagas/${vaga.id}/candidatos`,
    '/api/v1/vagas',
    '/api/v2/vagas'
  ]
  const read = (url: string, etag?: string) => app.inject({ url, headers: { ...auth, ...(etag !== undefined && { 'if-none-match': etag }) } })
  const etags = async () => await Promise.all(lists.map(async url => {
    const res = await read(url)
    t.equal(res.statusCode, 200, url)
    t.match(res.headers.etag, /^W\/"[^"]+"$/, `${url}: a weak ETag`)
    return res.headers.etag as string
  }))

  const first = await etags()
  t.equal(new Set(first).size, lists.length, 'each page has its own ETag')
  for (const [i, url] of lists.entries()) {
    const again = await read(url, first[i])
    t.equal(again.statusCode, 304, `${url}: the held page is current`)
    t.equal(again.body, '', `${url}: no body`)
    t.equal(again.headers.etag, first[i], `${url}: the same ETag`)
    t.equal(again.headers['cache-control'], 'no-store', `${url}: still for the client's own copy only`)
    t.equal((await read(url, 'W/"another", ' + first[i])).statusCode, 304, `${url}: one of several held tags`)
    t.equal((await read(url, '"something-else"')).statusCode, 200, `${url}: another tag gets the page`)
  }

  // A change to an item on the page moves every ETag.
  await json(app, 'PATCH', `/api/v1/candidatos/${ana.id}`, auth, { nome: 'Ana Maria' })
  await json(app, 'PATCH', `/api/v1/vagas/${vaga.id}`, auth, { titulo: 'Validada de novo' })
  const changed = await etags()
  for (const [i, url] of lists.entries()) {
    t.not(changed[i], first[i], `${url}: an item changed`)
    const res = await read(url, first[i])
    t.equal(res.statusCode, 200, `${url}: the old ETag gets the new page`)
    t.equal(res.headers.etag, changed[i])
  }

  // A new matching item moves them again.
  const bia = await json<{ id: string }>(app, 'POST', '/api/v1/candidatos', auth, { nome: 'Bia', email: 'bia@example.com' })
  await json(app, 'POST', `/api/v1/candidatos/${bia.id}/candidatar`, auth, { vagaId: vaga.id })
  const outra = await json<{ id: string }>(app, 'POST', '/api/v1/vagas', auth, { titulo: 'Outra', status: 'aberta' })
  const grown = await etags()
  for (const [i, url] of lists.entries()) {
    t.not(grown[i], changed[i], `${url}: a new item`)
    t.equal((await read(url, changed[i])).statusCode, 200)
  }

  // An item deleted and another created in its place: the same count, links and versao, other items.
  const vagaLists = ['/api/v1/vagas', '/api/v2/vagas']
  const before = await Promise.all(vagaLists.map(async url => (await read(url)).headers.etag as string))
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/vagas/${outra.id}`, headers: auth })).statusCode, 204)
  await json(app, 'POST', '/api/v1/vagas', auth, { titulo: 'Terceira', status: 'aberta' })
  for (const [i, url] of vagaLists.entries()) {
    const res = await read(url, before[i])
    t.equal(res.statusCode, 200, `${url}: a replaced item is a new page`)
    t.not(res.headers.etag, before[i], `${url}: with a new ETag`)
  }
}

t.test('pages carry weak ETags and answer If-None-Match on the embedded database', async t => {
  await pagesAreValidated(t, {})
})

t.test('pages carry weak ETags and answer If-None-Match on PostgreSQL', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  await pagesAreValidated(t, { DATABASE_URL: url })
})
