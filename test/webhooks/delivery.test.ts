// Events delivered as Standard Webhooks, on the embedded database and on PostgreSQL: every delivery
// verified by a receiver built on the `standardwebhooks` package, in order per subject, filtered by
// type, retried after a failure, signed with the new secret after a rotation, never redirected, and
// each attempt listed.
import t, { type Test } from 'tap'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { bearer, build } from '../helper.ts'
import { API_POLL, eventually } from '../support/eventually.ts'
import { injectedApi, type InjectedApi } from '../support/injected-api.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.ts'

const SCOPES = 'vagas:read vagas:write candidatos:read candidatos:write webhooks:write eventos:read'
// Short intervals so a test waits for deliveries and retries in seconds.
const FAST = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1' }

type Client = InjectedApi

async function client (app: FastifyInstance): Promise<Client> {
  return await injectedApi(app, SCOPES)
}

async function subscribe (api: Client, receiver: Receiver, tipos?: string[]): Promise<string> {
  const { id, segredo } = await api.send<{ id: string, segredo: string }>('POST', '/api/v2/webhooks', { url: receiver.url, ...(tipos !== undefined && { tipos }) })
  receiver.secret = segredo
  return id
}

interface Attempt { numero: number, resultado: string, codigo: number | null, erro: string | null, mensagemId: string, duracaoMs: number, em: string }

/** A subscription's attempts, newest first. */
async function attemptsOf (api: Client, id: string): Promise<Attempt[]> {
  return (await api.send<{ items: Attempt[] }>('GET', `/api/v2/webhooks/${id}/tentativas`)).items
}

/** An app with one subscription, whose receiver fails every delivery (503) until told otherwise. */
async function failingSubscription (t: Test, env: Record<string, string>) {
  const app = await build(t, { env: { ...FAST, ...env } })
  await app.health.lifecycle.reached('serving')
  const api = await client(app)
  const receiver = await startReceiver(t)
  receiver.answer = () => ({ status: 503 })
  const id = await subscribe(api, receiver)
  return { app, api, receiver, id }
}

async function deliveries (t: Test, env: Record<string, string>): Promise<void> {
  const app = await build(t, { env: { ...FAST, ...env } })
  await app.health.lifecycle.reached('serving')
  const api = await client(app)
  const everything = await startReceiver(t)
  const vagasOnly = await startReceiver(t)
  const all = await subscribe(api, everything)
  await subscribe(api, vagasOnly, ['vaga.criada'])

  const vaga = await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  await api.send('PATCH', `/api/v2/vagas/${vaga.id}`, { titulo: 'Backend sênior' })
  const candidato = await api.send('POST', '/api/v2/candidatos', { nome: 'Ana', email: 'ana@example.com' })
  await api.send('POST', `/api/v2/candidatos/${candidato.id}/candidatar`, { vagaId: vaga.id })
  await api.send('POST', `/api/v2/candidatos/${candidato.id}/aprovar`, {})

  await eventually(() => { assert.equal(everything.deliveries.length, 5) })
  t.ok(everything.deliveries.every(delivery => delivery.verified), 'every delivery verifies with standardwebhooks')
  // Subjects' deliveries may arrive in any order: the vaga's creation is found by its type.
  const first = everything.deliveries.find(d => d.payload.type === 'vaga.criada')
  t.throws(() => new Webhook(everything.secret).verify(first!.body.replace('Backend', 'Backdoor'), first!.headers as Record<string, string>),
    'a delivery\'s body changed on the way does not')
  const bySubject = (subject: string) => everything.deliveries.filter(d => d.payload.data.sujeito.id === subject).map(d => d.payload.type)
  t.same(bySubject(vaga.id), ['vaga.criada', 'vaga.alterada'], 'a vaga\'s events in order')
  t.same(bySubject(candidato.id), ['candidato.criado', 'candidato.candidatar', 'candidato.aprovar'], 'a candidato\'s events in order')
  t.match(first!.payload, { type: 'vaga.criada', timestamp: /^\d{4}-\d\d-\d\dT/, data: { tipo: 'vaga.criada', sujeito: { tipo: 'vaga', id: vaga.id }, dados: { titulo: 'Backend' } } },
    'the payload: type, timestamp, and the event as the feed shows it')
  const feed = await api.send<{ items: unknown[] }>('GET', '/api/v2/eventos')
  // Subjects' deliveries may interleave in any order: compared in the feed's.
  t.same(everything.deliveries.map(d => d.payload.data).sort((a, b) => a.id - b.id), feed.items, 'data: each event as the feed shows it')
  t.match(first!.headers['content-type'], /^application\/json/)

  await eventually(() => { assert.equal(vagasOnly.deliveries.length, 1) })
  t.same(vagasOnly.deliveries.map(d => d.payload.type), ['vaga.criada'], 'a subscription to one type gets that type only')

  const attempts = await eventually(async () => {
    const items = await attemptsOf(api, all)
    assert.equal(items.length, 5)
    return items
  }, API_POLL)
  t.pass('each attempt is listed')
  t.ok(attempts.every(a => a.resultado === 'sucesso' && a.codigo === 204 && a.numero === 1 && a.duracaoMs >= 0), 'with its outcome, code and latency')

  t.test('after a rotation, deliveries verify with the new secret only', async t => {
    const old = everything.secret
    const { segredo } = await api.send<{ segredo: string }>('POST', `/api/v2/webhooks/${all}/rotacionar-segredo`)
    everything.secret = segredo
    await api.send('POST', '/api/v2/vagas', { titulo: 'Dados' })
    await eventually(() => { assert.equal(everything.deliveries.length, 6) })
    const latest = everything.deliveries.at(-1)!
    t.ok(latest.verified, 'the new secret verifies it')
    t.throws(() => new Webhook(old).verify(latest.body, latest.headers as Record<string, string>), 'the old one does not')
  })

  t.test('a failed delivery is retried until it succeeds', async t => {
    const flaky = await startReceiver(t)
    let answered = 0
    flaky.answer = () => ({ status: answered++ === 0 ? 500 : 200 })
    const id = await subscribe(api, flaky)
    await api.send('POST', '/api/v2/vagas', { titulo: 'Frontend' })
    await eventually(() => { assert.equal(flaky.deliveries.length, 2) })
    t.ok(flaky.deliveries.every(d => d.verified), 'both attempts signed')
    t.equal(flaky.deliveries[0]!.id, flaky.deliveries[1]!.id, 'with the same webhook-id')
    // An attempt is recorded once its answer is in: after the receiver saw it.
    const items = await eventually(async () => {
      const page = await attemptsOf(api, id)
      assert.equal(page.length, 2)
      return page
    }, API_POLL)
    t.match(items, [{ numero: 2, resultado: 'sucesso', codigo: 200 }, { numero: 1, resultado: 'falha', codigo: 500, erro: 'status' }], 'newest first')
  })

  t.test('a redirect is a failed attempt and is not followed', async t => {
    const moved = await startReceiver(t)
    moved.answer = () => ({ status: 302, headers: { location: everything.url } })
    const id = await subscribe(api, moved, ['vaga.criada'])
    const before = everything.deliveries.length
    await api.send('POST', '/api/v2/vagas', { titulo: 'Infra' })
    const items = await eventually(async () => {
      const page = await attemptsOf(api, id)
      assert.ok(page.length > 0)
      return page
    }, API_POLL)
    t.match(items.at(-1), { numero: 1, resultado: 'falha', codigo: 302, erro: 'redirect' })
    await eventually(() => { assert.equal(everything.deliveries.length, before + 1) })
    t.notOk(everything.deliveries.some(d => d.id === items.at(-1)!.mensagemId), 'the location was not followed')
  })
}

t.test('deliveries on the embedded database', async t => { await deliveries(t, {}) })

t.test('deliveries on PostgreSQL', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  await deliveries(t, { DATABASE_URL: url })
})

t.test('a subscription failing for WEBHOOK_DISABLE_AFTER_SECONDS is disabled', async t => {
  const { api, id } = await failingSubscription(t, { WEBHOOK_DISABLE_AFTER_SECONDS: '1' })
  await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  const disabled = await eventually(async () => {
    const webhook = await api.send<{ ativo: boolean, desativadoEm: string | null }>('GET', `/api/v2/webhooks/${id}`)
    assert.equal(webhook.ativo, false)
    return webhook
  }, API_POLL)
  t.match(disabled.desativadoEm, /^\d{4}-/, 'it says when')
  const items = await attemptsOf(api, id)
  t.ok(items.length >= 2 && items.every(a => a.resultado === 'falha'), `after failed attempts only (${items.length})`)
  const enabled = await api.send<{ ativo: boolean, desativadoEm: string | null }>('PATCH', `/api/v2/webhooks/${id}`, { ativo: true })
  t.match(enabled, { ativo: true, desativadoEm: null }, 'turning it on again forgets the failures')
})

t.test('turned off and on again, a subscription gets the events from then on: retries queued before are dropped', async t => {
  const { app, api, receiver, id } = await failingSubscription(t, { WEBHOOK_RETRY_DELAY_SECONDS: '3' })
  await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  // Its first attempt failed: its retry waits in the queue, seconds away.
  await eventually(async () => { assert.equal((await attemptsOf(api, id)).length, 1) }, API_POLL)
  await api.send('PATCH', `/api/v2/webhooks/${id}`, { ativo: false })
  receiver.answer = () => ({ status: 204 })
  const failed = receiver.deliveries.length
  await api.send('PATCH', `/api/v2/webhooks/${id}`, { ativo: true })
  await api.send('POST', '/api/v2/vagas', { titulo: 'Frontend' })

  // Until the queue holds nothing: the retry has run by then.
  await eventually(async () => {
    const { rows } = await sql<{ live: string }>`select count(*) as live from webhook_jobs.job where state in ('created', 'retry', 'active')`.execute(app.storage.db)
    assert.equal(Number(rows[0]!.live), 0)
  }, { timeout: 30_000 })
  const titles = receiver.deliveries.slice(failed).map(d => (d.payload.data.dados as { titulo: string }).titulo)
  t.same(titles, ['Frontend'], 'only the event from after it was turned on again')
})

t.test('turned on again, a subscription delivers a subject\'s new event without waiting out a dropped retry', async t => {
  // The dropped retry is an hour away: a new event kept behind it fails the bound below.
  const { api, receiver, id } = await failingSubscription(t, { WEBHOOK_RETRY_DELAY_SECONDS: '3600' })
  const vaga = await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  await eventually(async () => { assert.equal((await attemptsOf(api, id)).length, 1) }, API_POLL)
  await api.send('PATCH', `/api/v2/webhooks/${id}`, { ativo: false })
  receiver.answer = () => ({ status: 204 })
  const failed = receiver.deliveries.length
  await api.send('PATCH', `/api/v2/webhooks/${id}`, { ativo: true })
  await api.send('PATCH', `/api/v2/vagas/${vaga.id}`, { titulo: 'Backend sênior' })

  const titles = await eventually(() => {
    const titles = receiver.deliveries.slice(failed).map(d => (d.payload.data.dados as { titulo: string }).titulo)
    assert.ok(titles.length > 0)
    return titles
  })
  t.same(titles, ['Backend sênior'], 'the vaga\'s new event, and not the one dropped while it was off')
})

t.test('a receiver that holds every delivery slows no other receiver, not even on the same subject', async t => {
  // The held deliveries wait far longer than the bound below: a healthy receiver kept behind them fails it.
  const app = await build(t, { env: { ...FAST, WEBHOOK_TIMEOUT_MS: '60000' } })
  await app.health.lifecycle.reached('serving')
  const api = await client(app)
  const stuck = await startReceiver(t)
  const release: Array<() => void> = []
  stuck.answer = async () => await new Promise<Answer>(resolve => { release.push(() => { resolve({ status: 204 }) }) })
  const healthy = await startReceiver(t)
  await subscribe(api, stuck)
  await subscribe(api, healthy)

  // One subject: its deliveries go one after another, each behind the one before it.
  const vaga = await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  for (const titulo of ['Backend pleno', 'Backend sênior', 'Backend líder']) await api.send('PATCH', `/api/v2/vagas/${vaga.id}`, { titulo })

  await eventually(() => { assert.equal(healthy.deliveries.length, 4) }, { timeout: 30_000 })
  t.same(healthy.deliveries.map(d => d.payload.type), ['vaga.criada', 'vaga.alterada', 'vaga.alterada', 'vaga.alterada'], 'the healthy receiver got every event, in order')
  t.ok(healthy.deliveries.every(d => d.verified), 'each verified')
  t.equal(stuck.deliveries.length, 1, 'while the other still holds the first')
  for (const answer of release) answer()
})

t.test('a subscription made without candidatos:read or eventos:read never receives a candidato event', async t => {
  const app = await build(t, { env: FAST })
  await app.health.lifecycle.reached('serving')
  const api = await client(app)
  const everything = await startReceiver(t)
  await subscribe(api, everything)
  const vagasOnly = await startReceiver(t)
  const created = await app.inject({
    method: 'POST',
    url: '/api/v2/webhooks',
    headers: await bearer({ sub: 'vagas-reader', scope: 'webhooks:write vagas:read' }),
    payload: { url: vagasOnly.url }
  })
  t.equal(created.statusCode, 201, created.body)
  vagasOnly.secret = created.json().segredo

  const vaga = await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  const candidato = await api.send('POST', '/api/v2/candidatos', { nome: 'Ana', email: 'ana@example.com' })
  await api.send('POST', `/api/v2/candidatos/${candidato.id}/candidatar`, { vagaId: vaga.id })
  await api.send('POST', '/api/v2/vagas', { titulo: 'Dados' })

  await eventually(() => { assert.equal(everything.deliveries.length, 4) })
  // The last event is a vaga's: once it is in, every event before it was dispatched to this subscription too.
  await eventually(() => { assert.equal(vagasOnly.deliveries.length, 2) })
  t.same(vagasOnly.deliveries.map(d => d.payload.type), ['vaga.criada', 'vaga.criada'], 'the vagas\' events only')
  t.notOk(vagasOnly.deliveries.some(d => d.body.includes('ana@example.com')), 'no candidato\'s name or e-mail')
  t.ok(vagasOnly.deliveries.every(d => d.verified), 'each verified')
})
