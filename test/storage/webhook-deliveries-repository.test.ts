// Delivery attempts: recorded with the subscription's run of failures, disabled past the period,
// and purged with the events they delivered.
import t from 'tap'
import { sql } from 'kysely'
import { createWebhookDeliveriesRepository } from '../../src/storage/webhook-deliveries-repository.ts'
import { createWebhooksRepository, type WebhookRecord } from '../../src/storage/webhooks-repository.ts'
import { migratedDatabase } from '../support/database.ts'

const failed = { ok: false, durationMs: 5, statusCode: 500, error: 'status' as const }
const succeeded = { ok: true, durationMs: 3, statusCode: 200 }

t.test('attempts, failures and the purge', async t => {
  const db = await migratedDatabase(t, 'pglite')
  if (db === undefined) return
  const webhooks = createWebhooksRepository(db)
  const deliveries = createWebhookDeliveriesRepository(db, 24)
  const webhook = await webhooks.create({ url: 'https://example.com/hook', tipos: [], ativo: true }, { actor: 'test', readScopes: ['eventos:read'] }, 'whsec_AAAA', 10) as WebhookRecord
  const attempt = (number: number, outcome = failed) => ({ eventId: 1, messageId: 'msg_1', number, outcome })

  const runBeganAnHourAgo = async () => { await sql`update webhooks set falhando_desde = now() - interval '1 hour'`.execute(db) }
  t.match(await deliveries.recordAttempts(webhook.id, [attempt(1)], 3600), { enabled: true, failingSeconds: Number, recovered: false }, 'a failure within the period leaves it on')
  await runBeganAnHourAgo()
  t.match((await deliveries.target(webhook.id))?.failingSeconds, Number, 'its target says how long it has failed')
  t.ok((await deliveries.target(webhook.id))!.failingSeconds! >= 3600)
  t.same(await deliveries.recordAttempts(webhook.id, [attempt(2, { ok: true, durationMs: 3, statusCode: 200, error: undefined as never })], 60), { enabled: true, failingSeconds: null, recovered: true }, 'a success ends the run of failures')
  t.equal((await deliveries.target(webhook.id))?.failingSeconds, null)
  const next = await deliveries.recordAttempts(webhook.id, [attempt(3)], 60)
  t.match(next, { enabled: true, recovered: false }, 'so the next failure starts a new one')
  t.ok(next.failingSeconds !== null && next.failingSeconds < 60, 'counted from now')
  await runBeganAnHourAgo()
  t.match(await deliveries.recordAttempts(webhook.id, [attempt(4)], 60), { enabled: false }, 'a failure past the period disables it')
  t.match(await webhooks.findById(webhook.id, { every: true }), { ativo: false, desativadoEm: String })
  t.equal(await deliveries.target(webhook.id), undefined, 'a disabled subscription has no target')

  t.same((await deliveries.listAttempts(webhook.id, 10)).map(a => a.numero), [4, 3, 2, 1], 'newest first')
  await sql`update webhook_tentativas set em = now() - interval '25 hours' where numero < 3`.execute(db)
  t.equal(await deliveries.purgeExpiredAttempts(), 2, 'attempts older than the retention are removed')
  t.same((await deliveries.listAttempts(webhook.id, 10)).map(a => a.numero), [4, 3])
})

t.test('attempts that change nothing leave the subscription\'s row unwritten', async t => {
  const db = await migratedDatabase(t, 'pglite')
  if (db === undefined) return
  const deliveries = createWebhookDeliveriesRepository(db, 24)
  const webhook = await createWebhooksRepository(db).create({ url: 'https://example.com/hook', tipos: [], ativo: true }, { actor: 'test', readScopes: ['eventos:read'] }, 'whsec_AAAA', 10) as WebhookRecord
  const attempt = (number: number, outcome: typeof failed | typeof succeeded) => ({ eventId: 1, messageId: 'msg_1', number, outcome })
  // The row's version: a new one with every write.
  const version = async () => (await sql<{ xmin: string }>`select xmin::text from webhooks where id = ${webhook.id}`.execute(db)).rows[0]!.xmin

  const created = await version()
  t.same(await deliveries.recordAttempts(webhook.id, [attempt(1, succeeded)], 3600), { enabled: true, failingSeconds: null, recovered: false })
  t.equal(await version(), created, 'a success of a healthy subscription')
  await deliveries.recordAttempts(webhook.id, [attempt(2, failed)], 3600)
  const failing = await version()
  t.not(failing, created, 'the first failure starts the run')
  t.match(await deliveries.recordAttempts(webhook.id, [attempt(3, failed)], 3600), { enabled: true, failingSeconds: Number, recovered: false })
  t.equal(await version(), failing, 'a failure within the run')
  await deliveries.recordAttempts(webhook.id, [attempt(4, succeeded)], 3600)
  t.not(await version(), failing, 'a success ends the run')
})

t.test('a batch\'s attempts in one record', async t => {
  const db = await migratedDatabase(t, 'pglite')
  if (db === undefined) return
  const deliveries = createWebhookDeliveriesRepository(db, 24)
  const webhook = await createWebhooksRepository(db).create({ url: 'https://example.com/hook', tipos: [], ativo: true }, { actor: 'test', readScopes: ['eventos:read'] }, 'whsec_AAAA', 10) as WebhookRecord
  const runBeganLately = async () => (await sql<{ lately: boolean }>`select falhando_desde > now() - interval '1 minute' as lately from webhooks where id = ${webhook.id}`.execute(db)).rows[0]!.lately

  await deliveries.recordAttempts(webhook.id, [{ eventId: 1, messageId: 'msg_1', number: 1, outcome: failed }], 60)
  await sql`update webhooks set falhando_desde = now() - interval '1 hour'`.execute(db)
  const batch = [
    { eventId: 2, messageId: 'msg_2', number: 1, outcome: succeeded },
    { eventId: 3, messageId: 'msg_3', number: 1, outcome: failed }
  ]
  t.match(await deliveries.recordAttempts(webhook.id, batch, 60), { enabled: true, recovered: false }, 'a batch that also succeeded does not disable it')
  t.equal(await runBeganLately(), true, 'its failure starts a new run')
  t.same((await deliveries.listAttempts(webhook.id, 10)).map(a => [a.eventoId, a.resultado]), [[3, 'falha'], [2, 'sucesso'], [1, 'falha']], 'each attempt recorded')
})
