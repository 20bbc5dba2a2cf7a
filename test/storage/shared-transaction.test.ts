// Actions that arrive in the same turn share one transaction (src/storage/candidatos-repository.ts).
// What one client's action runs into there, a refusal, a database error, a row locked elsewhere,
// must leave every other client's answer as it would have been alone.
import t from 'tap'
import pg from 'pg'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { bearer, build } from '../helper.js'
import { freshPostgresDatabase } from '../support/services.js'

const ALL = { scope: 'vagas:read vagas:write candidatos:read candidatos:write' }
// The statement deadline is a second under it: a client whose row stays locked gets 503 after it.
const HANDLER_TIMEOUT = '4000'

interface Scene {
  app: FastifyInstance
  url: string
  headers: { authorization: string }
  vagaId: string
  /** A new candidato, `cadastrado`, by name. */
  candidato: (nome: string) => Promise<string>
  candidatar: (id: string) => Promise<LightMyRequestResponse>
  read: (id: string) => Promise<{ status: string, historico: unknown[] }>
}

async function scene (t: Parameters<typeof freshPostgresDatabase>[0]): Promise<Scene | undefined> {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return undefined
  const app = await build(t, { env: { DATABASE_URL: url, HANDLER_TIMEOUT } })
  await app.health.lifecycle.reached('serving')
  const headers = await bearer(ALL)
  const vaga = await app.inject({ method: 'POST', url: '/api/v2/vagas', headers, payload: { titulo: 'Backend' } })
  const vagaId = (vaga.json() as { id: string }).id
  return {
    app,
    url,
    headers,
    vagaId,
    candidato: async nome => (await app.inject({ method: 'POST', url: '/api/v2/candidatos', headers, payload: { nome, email: `${nome.toLowerCase()}@example.com` } })).json().id,
    candidatar: async id => await app.inject({ method: 'POST', url: `/api/v2/candidatos/${id}/candidatar`, headers, payload: { vagaId } }),
    read: async id => (await app.inject({ url: `/api/v2/candidatos/${id}`, headers })).json()
  }
}

async function connected (url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

t.test('a refused action (409) in the same turn leaves the others as they would be alone', async t => {
  const s = await scene(t)
  if (s === undefined) return
  const [ana, bia, caio] = [await s.candidato('Ana'), await s.candidato('Bia'), await s.candidato('Caio')]
  // Ana is not in a vaga: aprovar is refused; Bia and Caio apply in the same turn.
  const [refused, ...applied] = await Promise.all([
    s.app.inject({ method: 'POST', url: `/api/v2/candidatos/${ana}/aprovar`, headers: s.headers }),
    s.candidatar(bia),
    s.candidatar(caio)
  ])
  t.equal(refused.statusCode, 409)
  t.same(applied.map(answer => answer.statusCode), [200, 200])
  t.match(await s.read(ana), { status: 'cadastrado', historico: [] })
  for (const id of [bia, caio]) t.match(await s.read(id), { status: 'inscrito', historico: [{ acao: 'candidatar' }] })
})

t.test('a row one client keeps locked delays that client only, never the others of its turn', async t => {
  const s = await scene(t)
  if (s === undefined) return
  const [ana, bia, caio] = [await s.candidato('Ana'), await s.candidato('Bia'), await s.candidato('Caio')]
  // Another transaction holds Ana's row, as a long-running request or a session left open would.
  const holder = await connected(s.url)
  t.teardown(() => holder.end())
  await holder.query('begin')
  await holder.query('select id from candidatos where id = $1 for update', [ana])

  let anaAnswered = false
  const anaAnswer = s.candidatar(ana).then(answer => { anaAnswered = true; return answer })
  const others = await Promise.all([s.candidatar(bia), s.candidatar(caio)])
  t.same(others.map(answer => answer.statusCode), [200, 200], 'the others answered on their own merits')
  t.notOk(anaAnswered, 'while the locked client still waits for its row')
  for (const id of [bia, caio]) t.match(await s.read(id), { status: 'inscrito', historico: [{ acao: 'candidatar' }] })

  await holder.query('commit')
  t.equal((await anaAnswer).statusCode, 200, 'and once the row is free, the locked client\'s action is made')
  t.match(await s.read(ana), { status: 'inscrito', historico: [{ acao: 'candidatar' }] })
})

t.test('a database error for one client\'s action (constraint, deadlock, serialization) fails that action only', async t => {
  const s = await scene(t)
  if (s === undefined) return
  const admin = await connected(s.url)
  t.teardown(() => admin.end())
  // A trigger refuses the history entry of one candidato with the SQLSTATE the test names: the database
  // itself raises the error, in the statement all the turn's moves share.
  await admin.query('create table refused_for (candidato_id uuid primary key, sqlstate text not null)')
  await admin.query(`create function refuse_one() returns trigger language plpgsql as $$
    declare code text;
    begin
      select sqlstate into code from refused_for where candidato_id = new.candidato_id;
      if code is not null then raise exception 'refused for the test' using errcode = code; end if;
      return new;
    end $$`)
  await admin.query('create trigger refuse_one before insert on candidato_acoes for each row execute function refuse_one()')

  for (const [sqlstate, what] of [['23514', 'a check constraint'], ['40P01', 'a deadlock'], ['40001', 'a serialization failure']]) {
    const [failing, ...others] = [await s.candidato(`Ana${sqlstate}`), await s.candidato(`Bia${sqlstate}`), await s.candidato(`Caio${sqlstate}`)]
    await admin.query('insert into refused_for values ($1, $2)', [failing, sqlstate])
    const alone = await s.candidatar(failing)
    const [failed, ...answers] = await Promise.all([s.candidatar(failing!), ...others.map(id => s.candidatar(id))])
    t.same(answers.map(answer => answer.statusCode), [200, 200], `${what}: the others' actions are made`)
    t.equal(failed.statusCode, alone.statusCode, `${what}: the failing client gets what it gets alone (${alone.statusCode})`)
    t.ok(failed.statusCode >= 400)
    t.match(await s.read(failing!), { status: 'cadastrado', historico: [] }, `${what}: nothing of the failed action is stored`)
    for (const id of others) t.match(await s.read(id), { status: 'inscrito', historico: [{ acao: 'candidatar' }] }, `${what}: each other action is stored once`)
    for (const id of others) t.equal((await s.read(id)).historico.length, 1)
  }
})
