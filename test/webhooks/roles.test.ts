// Delivery scaled apart from the API: a process with SERVICE_ROLE=api queues deliveries and sends
// none; a worker started later on the same database sends what it queued.
import t from 'tap'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { injectedApi } from '../support/injected-api.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { startReceiver } from '../support/webhook-receiver.ts'
import { BATCH_QUEUE, DELIVERY_JOBS_TABLE } from '../../src/webhooks/queue-names.ts'

const FAST = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '100', HEALTH_REFRESH_INTERVAL_MS: '200' }

t.test('an API process queues deliveries and sends none; a worker on the same database sends them', async t => {
  const databaseUrl = await freshPostgresDatabase(t)
  if (databaseUrl === undefined) return
  const env = { ...FAST, DATABASE_URL: databaseUrl }
  const apiProcess = await build(t, { env: { ...env, SERVICE_ROLE: 'api' } })
  await apiProcess.health.lifecycle.reached('serving')
  const api = await injectedApi(apiProcess, 'vagas:write webhooks:write eventos:read')
  const receiver = await startReceiver(t)
  receiver.secret = (await api.send<{ segredo: string }>('POST', '/api/v2/webhooks', { url: receiver.url })).segredo

  /** The subscription's batches in the queue: their events and state, in the order they were queued. */
  const batches = async (): Promise<Array<{ eventIds: number[], state: string }>> => {
    const { rows } = await sql<{ eventIds: number[], state: string }>`select data->'eventIds' as "eventIds", state::text as state
      from ${sql.table(DELIVERY_JOBS_TABLE)} where name = ${BATCH_QUEUE} order by created_on, id`.execute(apiProcess.storage.db)
    return rows
  }
  const untilQueued = async (count: number): Promise<void> => {
    await eventually(async () => { assert.equal((await batches()).length, count, 'batches queued') }, { timeout: 30_000, interval: 50 })
  }

  const vaga = await api.send('POST', '/api/v2/vagas', { titulo: 'Backend' })
  await untilQueued(1)
  // A dispatch later, a process that sends would have sent the first batch long since: it woke its
  // workers when it queued it.
  await api.send('PATCH', `/api/v2/vagas/${vaga.id}`, { titulo: 'Backend sênior' })
  await untilQueued(2)
  t.same((await batches()).map(batch => batch.state), ['created', 'created'], 'no process took either batch')
  t.equal(receiver.deliveries.length, 0, 'nothing reached the receiver')

  await build(t, { env: { ...env, SERVICE_ROLE: 'worker' } })
  await eventually(() => { assert.equal(receiver.deliveries.length, 2) }, { timeout: 30_000, interval: 50 })
  t.ok(receiver.deliveries.every(delivery => delivery.verified), 'each delivery verifies with the subscription\'s secret')
  t.same(receiver.deliveries.map(delivery => delivery.payload.type), ['vaga.criada', 'vaga.alterada'], 'in order')
  t.same(receiver.deliveries.map(delivery => delivery.payload.data.sujeito.id), [vaga.id, vaga.id])
})
