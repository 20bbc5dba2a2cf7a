import t from 'tap'
import { connect, type Socket } from 'node:net'
import { ALL_SCOPES, bearer, build, buildServing } from '../../helper.ts'
import { listening } from '../../support/listening.ts'
import { eventually } from '../../support/eventually.ts'

const ready = async (t: Parameters<typeof build>[0], env: Record<string, string> = {}) => await buildServing(t, { env })

/** A raw connection whose received bytes are readable at any time; destroyed when the test ends. */
async function rawConnection (t: Parameters<typeof build>[0], port: number): Promise<{ socket: Socket, received: () => string }> {
  const socket = connect(port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  await new Promise(resolve => socket.once('connect', resolve))
  let text = ''
  socket.on('data', chunk => { text += chunk.toString('latin1') })
  socket.on('error', () => {})
  return { socket, received: () => text }
}

/** The JSON body of a complete raw answer, once it has arrived. */
async function answerOf (received: () => string): Promise<{ head: string, body: Record<string, unknown> }> {
  return await eventually(() => {
    const text = received()
    const split = text.indexOf('\r\n\r\n')
    const length = Number(/^content-length: (\d+)$/im.exec(text.slice(0, split))?.[1])
    if (split === -1 || Number.isNaN(length) || text.length < split + 4 + length) throw new Error(`incomplete answer: ${JSON.stringify(text)}`)
    return { head: text.slice(0, split), body: JSON.parse(text.slice(split + 4, split + 4 + length)) }
  })
}

t.test('a JSON body with invalid UTF-8 or a lone surrogate answers 400 problem and stores nothing', async t => {
  const { app, auth } = await ready(t)
  const bodies: Array<[string, Buffer, string]> = [
    ['invalid UTF-8 byte', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xff]), Buffer.from('"}')]), 'application/json'],
    ['truncated UTF-8 sequence', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xc3]), Buffer.from('"}')]), 'application/json'],
    ['encoded surrogate', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), 'application/json'],
    ['lone surrogate escape', Buffer.from('{"titulo":"Dev \\ud800"}'), 'application/json'],
    ['lone low surrogate escape', Buffer.from('{"titulo":"Dev \\uDC00 x"}'), 'application/json'],
    ['lone surrogate in a key', Buffer.from('{"titulo":"Dev","\\ud800":1}'), 'application/json'],
    ['vendor media type', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xff]), Buffer.from('"}')]), 'application/vnd.recrutamento-v1+json']
  ]
  for (const [name, payload, type] of bodies) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': type }, payload })
    t.equal(res.statusCode, 400, name)
    t.match(res.headers['content-type'], /^application\/problem\+json/, name)
    t.match(res.json(), { status: 400, code: 'InvalidJson', instance: '/api/v1/vagas' }, name)
  }
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: auth })).json().total, 0, 'nothing was stored')
  const pair = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"titulo":"Dev \\ud83d\\ude00 é"}' })
  t.equal(pair.statusCode, 201, 'a surrogate pair and plain UTF-8 pass')
  t.equal(pair.json().titulo, 'Dev 😀 é', 'stored exactly')
})

t.test('a cursor made for another collection, filter or sort answers 400 InvalidCursor', async t => {
  const { app, auth } = await ready(t)
  const vagas: string[] = []
  for (const titulo of ['A', 'B', 'C']) {
    vagas.push((await app.inject({ method: 'POST', url: '/api/v2/vagas', headers: auth, payload: { titulo } })).json().id)
  }
  for (const nome of ['Ana', 'Bia', 'Caio']) {
    const created = await app.inject({ method: 'POST', url: '/api/v2/candidatos', headers: auth, payload: { nome, email: `${nome}@example.com` } })
    await app.inject({ method: 'POST', url: `/api/v2/candidatos/${created.json().id}/candidatar`, headers: auth, payload: { vagaId: vagas[0] } })
  }
  const nextCursor = async (url: string): Promise<string> => {
    const res = await app.inject({ url, headers: auth })
    const next = res.json().links.find((link: { rel: string }) => link.rel === 'next').href as string
    return new URL(next, 'http://x').searchParams.get('cursor')!
  }
  const vagasCursor = await nextCursor('/api/v2/vagas?limit=1')
  const nestedCursor = await nextCursor(`/api/v2/vagas/${vagas[0]}/candidatos?limit=1`)
  const filteredCursor = await nextCursor('/api/v2/vagas?limit=1&status=aberta')
  const sortedCursor = await nextCursor('/api/v2/vagas?limit=1&sort=titulo')
  const misuses: Array<[string, string]> = [
    ['a /vagas cursor on /candidatos', `/api/v2/candidatos?limit=1&cursor=${vagasCursor}`],
    ['a /vagas/{id}/candidatos cursor on /candidatos?vagaId', `/api/v2/candidatos?limit=1&vagaId=${vagas[0]}&cursor=${nestedCursor}`],
    ['a /vagas/{id}/candidatos cursor on another vaga', `/api/v2/vagas/${vagas[1]}/candidatos?limit=1&cursor=${nestedCursor}`],
    ['a cursor made for a filter, without it', `/api/v2/vagas?limit=1&cursor=${filteredCursor}`],
    ['a cursor made for a sort, with another', `/api/v2/vagas?limit=1&sort=-titulo&cursor=${sortedCursor}`]
  ]
  for (const [name, url] of misuses) {
    const res = await app.inject({ url, headers: auth })
    t.equal(res.statusCode, 400, name)
    t.match(res.json(), { code: 'InvalidCursor' }, name)
  }
  t.equal((await app.inject({ url: `/api/v2/vagas?limit=1&cursor=${vagasCursor}`, headers: auth })).statusCode, 200, 'a cursor works where it was made')
  t.equal((await app.inject({ url: `/api/v2/vagas/${vagas[0]}/candidatos?limit=1&cursor=${nestedCursor}`, headers: auth })).statusCode, 200)
})

t.test('integers in the query are decimal digits only', async t => {
  const { app, auth } = await ready(t)
  for (const url of ['/api/v2/vagas?limit=0x10', '/api/v2/vagas?limit=1e1', '/api/v2/vagas?limit=0b1', '/api/v2/vagas?limit=%2016', '/api/v2/vagas?limit=16.0', '/api/v1/vagas?offset=0x10']) {
    const res = await app.inject({ url, headers: auth })
    t.equal(res.statusCode, 400, url)
    t.match(res.json(), { code: 'ValidationFailed', errors: [{ in: 'querystring', message: 'must be an integer in decimal digits' }] }, url)
  }
  t.equal((await app.inject({ url: '/api/v2/vagas?limit=16', headers: auth })).json().limit, 16, 'decimal digits pass')
  t.equal((await app.inject({ url: '/api/v2/vagas?limit=016', headers: auth })).json().limit, 16, 'leading zeros are still decimal')
})

t.test('a request without Host answers 400 problem+json; HTTP/1.0 may omit it', async t => {
  const { app } = await ready(t)
  const port = await listening(app)
  for (const path of ['/ping', '/api/v1/vagas']) {
    const { socket, received } = await rawConnection(t, port)
    socket.write(`GET ${path} HTTP/1.1\r\n\r\n`)
    const { head, body } = await answerOf(received)
    t.match(head, /^HTTP\/1\.1 400 /, path)
    t.match(head, /^content-type: application\/problem\+json/im, path)
    t.match(body, { status: 400, code: 'MissingHost', instance: path }, path)
  }
  const { socket, received } = await rawConnection(t, port)
  socket.write('GET /ping HTTP/1.0\r\n\r\n')
  await eventually(() => { if (!/^HTTP\/1\.1 200 /.test(received())) throw new Error(received()) })
})

t.test('a 431 problem names the path of the refused request, without its query', async t => {
  const { app } = await ready(t, { HEADER_LIMIT: '2048' })
  const port = await listening(app)
  const { socket, received } = await rawConnection(t, port)
  socket.write(`GET /api/v1/vagas?access_token=query-secret-123 HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(4096)}\r\n\r\n`)
  const { head, body } = await answerOf(received)
  t.match(head, /^HTTP\/1\.1 431 /)
  t.match(body, { status: 431, code: 'HeadersTooLarge', instance: '/api/v1/vagas' })
  t.notMatch(received(), 'query-secret-123', 'the query is not echoed')
})

t.test('an anonymous request to a protected route is refused with 401 before its body is read', async t => {
  const { app } = await ready(t, { HANDLER_TIMEOUT: '20000' })
  const port = await listening(app)
  const { socket, received } = await rawConnection(t, port)
  // Half a body, and the rest never comes: only an answer from the head can arrive in time.
  socket.write('POST /api/v1/vagas HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"titulo":')
  const { head, body } = await answerOf(received)
  t.match(head, /^HTTP\/1\.1 401 /)
  t.match(head, /^www-authenticate: Bearer realm="recrutamento-api"$/im)
  t.match(body, { status: 401, code: 'TokenRequired', instance: '/api/v1/vagas' })

  const form = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `titulo=Dev&access_token=${(await bearer({ scope: ALL_SCOPES })).authorization.slice(7)}` })
  t.equal(form.statusCode, 201, 'a form body may still carry the token (RFC 6750 section 2.2)')
  const twice = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { authorization: ['Bearer a', 'Bearer b'] as unknown as string, 'content-type': 'application/json' }, payload: '{}' })
  t.equal(twice.statusCode, 400, 'two Authorization headers are refused from the head too')
})

t.test('two Host headers answer 400; a redirect never takes its host from the request target', async t => {
  const { app } = await ready(t)
  const port = await listening(app)
  const doubled = await rawConnection(t, port)
  doubled.socket.write('GET /ping HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n')
  const refused = await answerOf(doubled.received)
  t.match(refused.head, /^HTTP\/1\.1 400 /)
  t.match(refused.body, { status: 400, code: 'MalformedRequest', detail: /more than one Host/ })

  for (const target of ['http://evil.example/PING/', 'https://evil.example:8443/Ping/?x=1', '//evil.example/PING/']) {
    const { socket, received } = await rawConnection(t, port)
    socket.write(`GET ${target} HTTP/1.1\r\nHost: api.example\r\n\r\n`)
    await eventually(() => { if (!received().includes('\r\n\r\n')) throw new Error(received()) })
    const location = /^location: (.*)$/im.exec(received())?.[1]?.trim()
    t.ok(location === undefined || (location.startsWith('/') && !location.startsWith('//')), `${target}: answered ${received().split('\r\n')[0]}, location ${location}`)
    t.notMatch(location ?? '', /evil\.example/, `${target}: no other host in Location`)
  }
})

t.test('OPTIONS * answers 200 with the methods the server supports', async t => {
  const { app } = await ready(t)
  const port = await listening(app)
  const { socket, received } = await rawConnection(t, port)
  socket.write('OPTIONS * HTTP/1.1\r\nHost: api.example\r\n\r\n')
  await eventually(() => { if (!received().includes('\r\n\r\n')) throw new Error(received()) })
  t.match(received(), /^HTTP\/1\.1 200 /)
  t.match(received(), /^allow: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT\r$/im)
})
