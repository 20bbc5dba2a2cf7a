import t from 'tap'
import { ALL_SCOPES, bearer, build, buildServing } from '../../helper.ts'
import { encodeCursor } from '../../../src/http/resources/collection-query.ts'

const ready = async (t: Parameters<typeof build>[0]) => await buildServing(t)

t.test('create, read, conditional read, replace, patch, delete', async t => {
  const { app, auth } = await ready(t)
  const created = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: { titulo: 'Desenvolvedora backend', descricao: 'Node.js' } })
  t.equal(created.statusCode, 201)
  const vaga = created.json()
  t.match(vaga, { titulo: 'Desenvolvedora backend', descricao: 'Node.js', status: 'aberta' })
  t.match(vaga.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.equal(created.headers.location, `/api/v1/vagas/${vaga.id}`)
  t.same(vaga.links, [
    { rel: 'self', href: `/api/v1/vagas/${vaga.id}`, method: 'GET' },
    { rel: 'edit', href: `/api/v1/vagas/${vaga.id}`, method: 'PUT' },
    { rel: 'edit', href: `/api/v1/vagas/${vaga.id}`, method: 'PATCH' },
    { rel: 'candidatos', href: `/api/v1/vagas/${vaga.id}/candidatos`, method: 'GET' }
  ])

  const read = await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: auth })
  t.equal(read.statusCode, 200)
  t.same(read.json(), vaga)
  const etag = read.headers.etag as string
  t.match(etag, /^"[^"]+"$/, 'a strong ETag')
  t.equal(read.headers['last-modified'], new Date(vaga.atualizadoEm).toUTCString())
  t.equal(read.headers['cache-control'], 'private, no-cache', 'a client may keep it and revalidates it before each use')
  t.equal(read.headers.pragma, undefined)
  t.equal(read.headers.expires, undefined)

  const v2 = await app.inject({ url: `/api/v2/vagas/${vaga.id}`, headers: auth })
  t.equal(v2.json().links[0].href, `/api/v2/vagas/${vaga.id}`, 'links use the version that served the request')
  t.not(v2.headers.etag, etag, 'each version has its own representation, so its own ETag')
  const negotiated = await app.inject({ url: `/api/vagas/${vaga.id}`, headers: { ...auth, 'x-api-version': '2.0' } })
  t.equal(negotiated.json().links[0].href, `/api/v2/vagas/${vaga.id}`)

  const head = await app.inject({ method: 'HEAD', url: `/api/v1/vagas/${vaga.id}`, headers: auth })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers.etag, etag)
  const options = await app.inject({ method: 'OPTIONS', url: `/api/v1/vagas/${vaga.id}` })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'DELETE, GET, HEAD, OPTIONS, PATCH, PUT')
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/vagas/${vaga.id}`, headers: auth })).statusCode, 405)

  const cached = await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-none-match': etag } })
  t.equal(cached.statusCode, 304)
  t.equal(cached.body, '')
  t.equal(cached.headers.etag, etag)
  t.equal(cached.headers['cache-control'], 'private, no-cache', 'the 304 carries the headers the 200 would')
  const since = await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-modified-since': read.headers['last-modified'] as string } })
  t.equal(since.statusCode, 304)
  const older = await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } })
  t.equal(older.statusCode, 200)
  const otherTag = await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-none-match': '"other"', 'if-modified-since': read.headers['last-modified'] as string } })
  t.equal(otherTag.statusCode, 200, 'If-None-Match decides when both are sent')

  const stale = await app.inject({ method: 'PUT', url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-match': '"1.0-99"' }, payload: { titulo: 'Outro', status: 'fechada' } })
  t.equal(stale.statusCode, 412)
  t.match(stale.json(), { code: 'PreconditionFailed' })
  t.equal((await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: auth })).json().titulo, 'Desenvolvedora backend', 'nothing changed')

  const replaced = await app.inject({ method: 'PUT', url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-match': etag }, payload: { titulo: 'Engenheira de dados', status: 'aberta' } })
  t.equal(replaced.statusCode, 200)
  t.match(replaced.json(), { titulo: 'Engenheira de dados', descricao: null, status: 'aberta' }, 'PUT replaces: the missing descricao is gone')
  t.not(replaced.headers.etag, etag)
  t.equal(replaced.headers['cache-control'], 'no-store', 'the answer to a write is not kept')
  t.equal((await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-none-match': etag } })).statusCode, 200, 'the old ETag is stale')

  const patched = await app.inject({ method: 'PATCH', url: `/api/v1/vagas/${vaga.id}`, headers: auth, payload: { status: 'fechada' } })
  t.equal(patched.statusCode, 200)
  t.match(patched.json(), { titulo: 'Engenheira de dados', status: 'fechada' })
  t.equal((await app.inject({ method: 'PATCH', url: `/api/v1/vagas/${vaga.id}`, headers: auth, payload: {} })).statusCode, 400, 'an empty patch changes nothing')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-match': etag } })).statusCode, 412)
  const removed = await app.inject({ method: 'DELETE', url: `/api/v1/vagas/${vaga.id}`, headers: { ...auth, 'if-match': patched.headers.etag as string } })
  t.equal(removed.statusCode, 204)
  t.equal(removed.body, '')
  t.equal((await app.inject({ url: `/api/v1/vagas/${vaga.id}`, headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/vagas/${vaga.id}`, headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/vagas/${vaga.id}`, headers: auth, payload: { titulo: 'x', status: 'aberta' } })).statusCode, 404)
})

t.test('unknown and malformed ids answer 404 problems', async t => {
  const { app, auth } = await ready(t)
  for (const id of ['00000000-0000-4000-8000-000000000000', 'abc', '1', '0B7C1A5E-8F2D-4C3B-9A6E-1F2D3C4B5A69', "1'%20or%20'1'='1", '%00']) {
    const res = await app.inject({ url: `/api/v1/vagas/${id}`, headers: auth })
    t.equal(res.statusCode, 404, id)
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  }
  t.equal((await app.inject({ url: '/api/v2/vagas/abc/candidatos', headers: auth })).statusCode, 404)
  t.equal((await app.inject({ url: '/api/v2/vagas/00000000-0000-4000-8000-000000000000/candidatos', headers: auth })).statusCode, 404)
})

t.test('scopes: reads need vagas:read, writes vagas:write', async t => {
  const { app } = await ready(t)
  t.equal((await app.inject({ url: '/api/v1/vagas' })).statusCode, 401)
  const reader = await bearer({ scope: 'vagas:read' })
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: reader })).statusCode, 200)
  const refused = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: reader, payload: { titulo: 'x' } })
  t.equal(refused.statusCode, 403)
  t.match(refused.headers['www-authenticate'], /insufficient_scope/)
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: await bearer({ scope: 'candidatos:read' }) })).statusCode, 403)
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: reader })).json().total, 0, 'the refused write created nothing')
})

t.test('hostile and invalid input answers 4xx and changes nothing', async t => {
  const { app, auth } = await ready(t)
  const bad: Array<[unknown, string]> = [
    [{}, '/titulo'],
    [{ titulo: '' }, '/titulo'],
    [{ titulo: '   ' }, '/titulo'],
    [{ titulo: 'x'.repeat(201) }, '/titulo'],
    [{ titulo: 42 }, '/titulo'],
    [{ titulo: { $ne: null } }, '/titulo'],
    [{ titulo: ['a'] }, '/titulo'],
    [{ titulo: 'ok', status: 'pausada' }, '/status'],
    [{ titulo: 'ok', extra: 1 }, '/extra'],
    [{ titulo: 'nul \u0000 byte' }, '/titulo'],
    [{ titulo: 'ok', descricao: 'x'.repeat(10_001) }, '/descricao']
  ]
  for (const [payload, field] of bad) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: payload as object })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60))
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ field }] })
  }
  const several = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: { titulo: 1, status: 2 } })
  t.equal(several.json().errors.length >= 2, true, 'every field is listed')

  const malformed = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"titulo": "x"' })
  t.equal(malformed.statusCode, 400)
  t.match(malformed.json(), { code: 'InvalidJson' })
  const huge = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ titulo: 'x', descricao: 'y'.repeat(2 * 1024 * 1024) }) })
  t.equal(huge.statusCode, 413)
  t.equal(huge.headers['content-type'], 'application/problem+json; charset=utf-8')
  const invalidUtf8 = Buffer.concat([Buffer.from('{"titulo":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')])
  const garbled = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': 'application/json' }, payload: invalidUtf8 })
  t.ok(garbled.statusCode < 500, `invalid UTF-8 answers ${garbled.statusCode}`)

  const sqlish = "Robert'); DROP TABLE vagas;--"
  const stored = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: { titulo: sqlish } })
  t.equal(stored.statusCode, 201)
  t.equal(stored.json().titulo, sqlish, 'SQL metacharacters are data')
  const list = await app.inject({ url: `/api/v1/vagas?q=${encodeURIComponent("robert'); drop")}`, headers: auth })
  t.equal(list.json().total, 1)
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'sort=senha', 'sort=titulo,titulo', 'sort=titulo;drop', 'status=x', 'q=', `q=${'a'.repeat(101)}`, 'q=%00']) {
    const res = await app.inject({ url: `/api/v1/vagas?${query}`, headers: auth })
    t.equal(res.statusCode, 400, query)
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
  }
  const count = await app.inject({ url: '/api/v1/vagas', headers: auth })
  t.equal(count.json().total, garbled.statusCode === 201 ? 2 : 1, 'only the valid creations exist')
})

t.test('lists: filters, sorts, v1 offset paging with total, v2 cursor paging with next', async t => {
  const { app, auth } = await ready(t)
  const titles = ['Analista', 'Backend', 'Cientista', 'Designer', 'Engenheira', 'Front-end', 'Gerente']
  for (const [i, titulo] of titles.entries()) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: auth, payload: { titulo, status: i % 3 === 0 ? 'fechada' : 'aberta' } })
    t.equal(res.statusCode, 201)
  }
  const first = await app.inject({ url: '/api/v1/vagas?sort=titulo&limit=3', headers: auth })
  t.equal(first.statusCode, 200)
  const page = first.json()
  t.same(page.items.map((v: { titulo: string }) => v.titulo), ['Analista', 'Backend', 'Cientista'])
  t.match(page, { total: 7, offset: 0, limit: 3 })
  t.same(page.links.map((l: { rel: string }) => l.rel), ['self', 'next'])
  t.equal(page.links[1].href, '/api/v1/vagas?sort=titulo&limit=3&offset=3')
  const third = (await app.inject({ url: '/api/v1/vagas?sort=titulo&limit=3&offset=6', headers: auth })).json()
  t.same(third.items.map((v: { titulo: string }) => v.titulo), ['Gerente'])
  t.same(third.links.map((l: { rel: string }) => l.rel), ['self', 'prev'])
  t.equal(first.headers['cache-control'], 'no-store', 'collections are not cacheable')

  const abertas = (await app.inject({ url: '/api/v1/vagas?status=aberta&sort=-titulo', headers: auth })).json()
  t.same(abertas.items.map((v: { titulo: string }) => v.titulo), ['Front-end', 'Engenheira', 'Cientista', 'Backend'])
  const byPrefix = (await app.inject({ url: '/api/v1/vagas?q=eN', headers: auth })).json()
  t.same(byPrefix.items.map((v: { titulo: string }) => v.titulo), ['Engenheira'])

  // v2: walk the next links to the end.
  const seen: string[] = []
  let url: string | undefined = '/api/v2/vagas?sort=-titulo&limit=2'
  let pages = 0
  while (url !== undefined) {
    const res: { statusCode: number, json: () => any } = await app.inject({ url, headers: auth })
    t.equal(res.statusCode, 200)
    const body: { items: Array<{ titulo: string }>, links: Array<{ rel: string, href: string }> } = res.json()
    t.notOk('total' in body, 'v2 reports no total')
    seen.push(...body.items.map(v => v.titulo))
    url = body.links.find(l => l.rel === 'next')?.href
    if (url !== undefined) t.match(url, /^\/api\/v2\/vagas\?sort=-titulo&limit=2&cursor=[A-Za-z0-9_-]+$/)
    pages++
  }
  t.equal(pages, 4)
  t.same(seen, [...titles].reverse())

  const cursor = new URL((await app.inject({ url: '/api/v2/vagas?sort=titulo&limit=2', headers: auth })).json().links[1].href, 'http://x').searchParams.get('cursor')!
  const otherSort = await app.inject({ url: `/api/v2/vagas?sort=-titulo&limit=2&cursor=${cursor}`, headers: auth })
  t.equal(otherSort.statusCode, 400)
  t.match(otherSort.json(), { code: 'InvalidCursor' })
  const otherFilter = await app.inject({ url: `/api/v2/vagas?sort=titulo&status=aberta&limit=2&cursor=${cursor}`, headers: auth })
  t.equal(otherFilter.statusCode, 400, 'a cursor is bound to its filters')
  for (const bad of ['abc', Buffer.from('{"b":1}').toString('base64url'), Buffer.from(JSON.stringify({ b: 'x', v: [], id: 'y' })).toString('base64url'), 'not*base64']) {
    const res = await app.inject({ url: `/api/v2/vagas?cursor=${bad}`, headers: auth })
    t.equal(res.statusCode, 400, `cursor ${bad}`)
  }
  // A cursor carrying values of the wrong kind for its sort is refused, not sent to the database.
  const nul = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), v: ['a\u0000b'] })).toString('base64url')
  t.equal((await app.inject({ url: `/api/v2/vagas?sort=titulo&limit=2&cursor=${nul}`, headers: auth })).statusCode, 400, 'NUL in a cursor value is refused before the database')
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), v: [{ $gt: '' }] })).toString('base64url')
  t.equal((await app.inject({ url: `/api/v2/vagas?sort=titulo&limit=2&cursor=${forged}`, headers: auth })).statusCode, 400)
})

t.test('Idempotency-Key: a retry answers the first result; another body with the same key is 422', async t => {
  const { app, auth } = await ready(t)
  const send = (payload: object, key = 'chave-1', headers = auth) =>
    app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...headers, 'idempotency-key': key }, payload })
  const first = await send({ titulo: 'Única', descricao: 'a' })
  t.equal(first.statusCode, 201)
  const retries = await Promise.all([send({ descricao: 'a', titulo: 'Única' }), send({ titulo: 'Única', descricao: 'a' })])
  for (const retry of retries) {
    t.equal(retry.statusCode, 201)
    t.equal(retry.body, first.body, 'the same body, byte for byte')
    t.equal(retry.headers.location, first.headers.location)
    t.equal(retry.headers['idempotent-replayed'], 'true')
  }
  const other = await send({ titulo: 'Outra' })
  t.equal(other.statusCode, 422)
  t.match(other.json(), { code: 'IdempotencyKeyReused' })
  const anotherCaller = await send({ titulo: 'Única', descricao: 'a' }, 'chave-1', await bearer({ scope: ALL_SCOPES, sub: 'recrutadora-2' }))
  t.equal(anotherCaller.statusCode, 201)
  t.not(anotherCaller.json().id, first.json().id, 'keys belong to their caller')
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: auth })).json().total, 2)
  t.equal((await send({ titulo: 'x' }, 'chave com espaço')).statusCode, 400, 'keys are printable ASCII without blanks')
})

t.test('a page size or offset that is not a finite number answers 400 ValidationFailed naming the field', async t => {
  const { app, auth } = await ready(t)
  for (const [version, query, field] of [['v1', 'limit=Infinity', '/limit'], ['v1', 'limit=-Infinity', '/limit'], ['v1', 'offset=1e400', '/offset'], ['v2', 'limit=1e400', '/limit']]) {
    const res = await app.inject({ url: `/api/${version}/vagas?${query}`, headers: auth })
    t.equal(res.statusCode, 400, query)
    // Text is read as an integer only when it is decimal digits, so these never reach a number.
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'querystring', field, message: 'must be an integer in decimal digits' }] }, query)
  }
})

t.test('a forged cursor with a timestamp the database cannot hold answers 400 InvalidCursor', async t => {
  const { app, auth } = await ready(t)
  // The cursor's binding is a digest anyone can compute: a client can forge a cursor that passes it.
  const forged = encodeCursor({ values: ['-271821-04-20T00:00:00.000Z'], id: '00000000-0000-4000-8000-000000000000' }, { collection: '/vagas', sort: '-criadoEm', filter: {} })
  const res = await app.inject({ url: `/api/v2/vagas?limit=5&cursor=${forged}`, headers: auth })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { code: 'InvalidCursor' })
})

t.test('a token whose subject holds a NUL is refused with 401 before anything is stored', async t => {
  const { app, auth } = await ready(t)
  // The subject becomes the owner of the Idempotency-Key; PostgreSQL cannot store a NUL in text.
  const nul = await bearer({ scope: ALL_SCOPES, sub: 'recrutadora\u0000-1' })
  const res = await app.inject({ method: 'POST', url: '/api/v2/vagas', headers: { ...nul, 'idempotency-key': 'chave-nul' }, payload: { titulo: 'Com NUL' } })
  t.equal(res.statusCode, 401)
  t.match(res.json(), { code: 'InvalidToken' })
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: auth })).json().total, 0, 'nothing was stored')
})

t.test('a vaga with candidatos cannot be deleted; nested candidatos list', async t => {
  const { app, auth } = await ready(t)
  const vaga = (await app.inject({ method: 'POST', url: '/api/v2/vagas', headers: auth, payload: { titulo: 'Com gente' } })).json()
  const ids: string[] = []
  for (const nome of ['Ana', 'Bia', 'Caio']) {
    const c = (await app.inject({ method: 'POST', url: '/api/v2/candidatos', headers: auth, payload: { nome, email: `${nome}@example.com` } })).json()
    ids.push(c.id)
    if (nome !== 'Caio') t.equal((await app.inject({ method: 'POST', url: `/api/v2/candidatos/${c.id}/candidatar`, headers: auth, payload: { vagaId: vaga.id } })).statusCode, 200)
  }
  const nested = await app.inject({ url: `/api/v1/vagas/${vaga.id}/candidatos?sort=nome`, headers: auth })
  t.equal(nested.statusCode, 200)
  t.same(nested.json().items.map((c: { nome: string }) => c.nome), ['Ana', 'Bia'])
  t.equal(nested.json().total, 2)
  t.equal(nested.json().links[0].href, `/api/v1/vagas/${vaga.id}/candidatos?sort=nome&limit=20&offset=0`)
  const v2 = (await app.inject({ url: `/api/v2/vagas/${vaga.id}/candidatos?status=inscrito&limit=1`, headers: auth })).json()
  t.equal(v2.items.length, 1)
  t.match(v2.items[0].vaga, { id: vaga.id, titulo: 'Com gente', status: 'aberta' })
  t.match(v2.links[1], { rel: 'next' })

  const refused = await app.inject({ method: 'DELETE', url: `/api/v2/vagas/${vaga.id}`, headers: auth })
  t.equal(refused.statusCode, 409)
  t.match(refused.json(), { code: 'VagaHasCandidatos' })
  t.equal((await app.inject({ url: `/api/v2/vagas/${vaga.id}`, headers: auth })).statusCode, 200, 'the vaga stays')
  for (const id of ids.slice(0, 2)) await app.inject({ method: 'DELETE', url: `/api/v2/candidatos/${id}`, headers: auth })
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v2/vagas/${vaga.id}`, headers: auth })).statusCode, 204, 'empty, it can go')
})

t.test('while the database is unreachable since start the routes answer 503 Starting at once', async t => {
  const app = await build(t, { env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' } })
  const auth = await bearer({ scope: ALL_SCOPES })
  const res = await app.inject({ url: '/api/v1/vagas', headers: auth })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { code: 'Starting' })
  t.equal(res.headers['retry-after'], '5')
  t.notMatch(res.body, /127\.0\.0\.1|postgres/)
})
