import t from 'tap'
import { createHmac } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ALL_SCOPES, build, buildServing, mintToken, TEST_JWT_SECRET } from '../../helper.ts'

/** An HS256 token over exactly this payload text (claims a JWT library would not write: `1e400`, no `sub`). */
function signedPayload (payload: string): string {
  const part = (text: string) => Buffer.from(text).toString('base64url')
  const unsigned = `${part(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${part(payload)}`
  return `${unsigned}.${createHmac('sha256', TEST_JWT_SECRET).update(unsigned).digest('base64url')}`
}

const inFiveMinutes = () => Math.floor(Date.now() / 1000) + 300

function claims (extra: Record<string, unknown>): string {
  return signedPayload(JSON.stringify({ scope: ALL_SCOPES, exp: inFiveMinutes(), ...extra }))
}

const ready = async (t: Parameters<typeof build>[0], env: Record<string, string> = {}): Promise<FastifyInstance> => (await buildServing(t, { env })).app

const createVaga = (app: FastifyInstance, token: string, key: string) => app.inject({
  method: 'POST', url: '/api/v1/vagas', headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, payload: { titulo: 'Mesma' }
})

/** The `ator` of each entry in the history of a new candidato after the token's caller enrols it in the vaga. */
async function actorsOfAction (app: FastifyInstance, token: string, vagaId: string): Promise<string[]> {
  const auth = { authorization: `Bearer ${token}` }
  const created = await app.inject({ method: 'POST', url: '/api/v1/candidatos', headers: auth, payload: { nome: 'Ana', email: `ana-${Math.random()}@example.com` } })
  await app.inject({ method: 'POST', url: `/api/v1/candidatos/${created.json().id}/candidatar`, headers: auth, payload: { vagaId } })
  return (await app.inject({ url: `/api/v1/candidatos/${created.json().id}`, headers: auth })).json().historico.map((h: { ator: string }) => h.ator)
}

t.test('a token that names neither a subject nor a client is refused with 401 invalid_token and acts on nothing', async t => {
  const app = await ready(t)
  const admin = await mintToken({ scope: ALL_SCOPES })
  for (const [name, token] of [['no sub, no client_id', claims({})], ['empty sub', claims({ sub: '' })], ['sub that is not text', claims({ sub: 42 })]] as const) {
    const res = await createVaga(app, token, 'chave-anonima')
    t.equal(res.statusCode, 401, name)
    t.match(res.headers['www-authenticate'], /error="invalid_token"/, name)
    t.match(res.json(), { code: 'InvalidToken', detail: 'The access token lacks a required claim.' }, name)
  }
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: { authorization: `Bearer ${admin}` } })).json().total, 0, 'nothing was created')
  t.equal((await createVaga(app, claims({ client_id: 'servico' }), 'k')).statusCode, 201, 'a client id alone names the caller')
  t.equal((await createVaga(app, claims({ azp: 'servico-2' }), 'k')).statusCode, 201, 'so does azp')
})

t.test('sub=alice and client_id=alice are two callers: their idempotency keys and actions never meet', async t => {
  const app = await ready(t)
  const subject = claims({ sub: 'alice' })
  const client = claims({ client_id: 'alice' })
  const bySubject = await createVaga(app, subject, 'chave-1')
  const byClient = await createVaga(app, client, 'chave-1')
  t.equal(bySubject.statusCode, 201)
  t.equal(byClient.statusCode, 201)
  t.not(byClient.headers['idempotent-replayed'], 'true', 'the client does not get the subject\'s replayed answer')
  t.not(byClient.json().id, bySubject.json().id, 'each created its own vaga')

  const vagaId = bySubject.json().id
  t.same(await actorsOfAction(app, subject, vagaId), ['alice'], 'a subject acts as itself')
  t.same(await actorsOfAction(app, client, vagaId), ['client:alice'], 'a client is named as a client')
  t.same(await actorsOfAction(app, claims({ sub: 'client:alice' }), vagaId), ['client%3Aalice'], 'a subject that looks like a client is told apart')
})

t.test('the same subject from two issuers is two callers; the issuer is named unless it is the required one', async t => {
  const app = await ready(t)
  const fromA = claims({ sub: 'alice', iss: 'https://a.example' })
  const first = await createVaga(app, fromA, 'chave-1')
  const second = await createVaga(app, claims({ sub: 'alice', iss: 'https://b.example' }), 'chave-1')
  t.equal(second.statusCode, 201)
  t.not(second.json().id, first.json().id, 'another issuer\'s alice does not get the first answer replayed')
  t.not(second.headers['idempotent-replayed'], 'true')
  t.same(await actorsOfAction(app, fromA, first.json().id), ['alice@https://a.example'])

  const single = await ready(t, { AUTH_ISSUER: 'https://a.example' })
  const vaga = await createVaga(single, fromA, 'chave-1')
  t.same(await actorsOfAction(single, fromA, vaga.json().id), ['alice'], 'with AUTH_ISSUER every caller has that issuer: it is left out')
})

t.test('two Authorization headers answer 400 invalid_request, whichever comes first', async t => {
  const app = await ready(t)
  const good = `Bearer ${await mintToken({ scope: ALL_SCOPES })}`
  for (const authorization of [[good, good], [good, 'Basic YTpi'], ['Basic YTpi', good]]) {
    const res = await app.inject({ url: '/api/v1/vagas', headers: { authorization: authorization as unknown as string } })
    t.equal(res.statusCode, 400, authorization.map(value => value.slice(0, 6)).join(' + '))
    t.match(res.headers['www-authenticate'], /error="invalid_request"/)
    t.match(res.headers['content-type'], /^application\/problem\+json/)
    t.match(res.json(), { code: 'InvalidAuthRequest' })
  }
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: { authorization: good } })).statusCode, 200, 'one header passes')
})

t.test('exp or nbf that is not a finite integer is refused with 401 invalid_token', async t => {
  const app = await ready(t)
  const exp = inFiveMinutes()
  const now = exp - 300
  const cases: Array<[string, string]> = [
    ['exp 1e400', `{"sub":"alice","scope":"${ALL_SCOPES}","exp":1e400}`],
    ['exp with a fraction', `{"sub":"alice","scope":"${ALL_SCOPES}","exp":${exp}.5}`],
    ['nbf -1e400', `{"sub":"alice","scope":"${ALL_SCOPES}","exp":${exp},"nbf":-1e400}`],
    ['nbf with a fraction', `{"sub":"alice","scope":"${ALL_SCOPES}","exp":${exp},"nbf":${now - 60}.25}`],
    ['exp beyond safe integers', `{"sub":"alice","scope":"${ALL_SCOPES}","exp":9007199254740993}`]
  ]
  for (const [name, payload] of cases) {
    const res = await app.inject({ url: '/api/v1/vagas', headers: { authorization: `Bearer ${signedPayload(payload)}` } })
    t.equal(res.statusCode, 401, name)
    t.match(res.headers['www-authenticate'], /error="invalid_token"/, name)
  }
  const fine = `{"sub":"alice","scope":"${ALL_SCOPES}","exp":${exp},"nbf":${now - 60}}`
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: { authorization: `Bearer ${signedPayload(fine)}` } })).statusCode, 200, 'integer times pass')
})
