// The typed client's `verifyWebhook`, on deliveries the running service sends and on ones the
// `standardwebhooks` package signs: what one verifies, the other does, and a wrong secret, a changed
// body, an old timestamp or a missing header is refused.
import t from 'tap'
import assert from 'node:assert/strict'
import { Webhook } from 'standardwebhooks'
import { createV2Client, verifyWebhook, WebhookVerificationError } from '../../clients/typescript/src/index.ts'
import { newSigningSecret } from '../../src/webhooks/signing-secret.ts'
import { build, mintToken } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

const FAST = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '100' }

async function refusal (promise: Promise<unknown>): Promise<string> {
  return await promise.then(() => 'verified', (error: unknown) => error instanceof WebhookVerificationError ? error.reason : String(error))
}

t.test('a delivery from the running service verifies, and a tampered, stale or foreign one is refused', async t => {
  const app = await build(t, { env: FAST })
  await app.health.lifecycle.reached('serving')
  const api = createV2Client({ baseUrl: await app.listen({ port: 0, host: '127.0.0.1' }), token: await mintToken({ scope: 'vagas:read vagas:write webhooks:write', ttl: '1h' }) })
  const receiver = await startReceiver(t)
  const subscription = await api.POST('/api/v2/webhooks', { body: { url: receiver.url } })
  const secret = subscription.data!.segredo
  receiver.secret = secret
  const vaga = (await api.POST('/api/v2/vagas', { body: { titulo: 'Assinada' } })).data!
  const delivery = await eventually(() => { assert.ok(receiver.deliveries[0] !== undefined); return receiver.deliveries[0] })
  const headers = delivery.headers as Record<string, string>

  const event = await verifyWebhook(secret, delivery.body, headers)
  t.match(event, { type: 'vaga.criada', data: { tipo: 'vaga.criada', sujeito: { tipo: 'vaga', id: vaga.id }, dados: { titulo: 'Assinada' } } }, 'the service\'s delivery verifies, and its typed event comes back')
  t.ok(delivery.verified, 'as standardwebhooks verifies it')
  t.equal(await refusal(verifyWebhook(newSigningSecret(), delivery.body, headers)), 'bad-signature', 'another secret is refused')
  t.equal(await refusal(verifyWebhook(secret, delivery.body.replace('Assinada', 'Forjada'), headers)), 'bad-signature', 'a changed body is refused')
  t.equal(await refusal(verifyWebhook(secret, delivery.body, { ...headers, 'webhook-id': 'msg_other' })), 'bad-signature', 'another message id is refused')
  const later = new Date(Number(headers['webhook-timestamp']) * 1000 + 6 * 60_000)
  t.equal(await refusal(verifyWebhook(secret, delivery.body, headers, { now: later })), 'old-timestamp', 'a delivery replayed six minutes later is refused')
  t.equal(await refusal(verifyWebhook(secret, delivery.body, { ...headers, 'webhook-signature': '' })), 'missing-header', 'a delivery without a signature is refused')
  t.equal(await refusal(verifyWebhook(secret, delivery.body, new Headers(headers))), 'verified', 'fetch Headers do as well as Node\'s')
})

t.test('what standardwebhooks signs verifies here, and what it refuses is refused here', async t => {
  const secret = newSigningSecret()
  const signer = new Webhook(secret)
  const body = JSON.stringify({ type: 'vaga.criada', timestamp: new Date().toISOString(), data: { id: 1 } })
  const signed = (at: Date) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign('msg_1', at, body) })
  const now = signed(new Date())
  const old = signed(new Date(Date.now() - 10 * 60_000))
  const ahead = signed(new Date(Date.now() + 10 * 60_000))
  const both = async (label: string, payload: string, headers: Record<string, string>) => ({
    label,
    ours: await refusal(verifyWebhook(secret, payload, headers)),
    theirs: (() => { try { signer.verify(payload, headers); return 'verified' } catch { return 'refused' } })()
  })
  t.same(await Promise.all([
    both('fresh', body, now),
    both('old', body, old),
    both('ahead', body, ahead),
    both('changed', body.replace('vaga', 'vago'), now),
    both('other secret', body, { ...now, 'webhook-signature': new Webhook(newSigningSecret()).sign('msg_1', new Date(), body) })
  ]), [
    { label: 'fresh', ours: 'verified', theirs: 'verified' },
    { label: 'old', ours: 'old-timestamp', theirs: 'refused' },
    { label: 'ahead', ours: 'future-timestamp', theirs: 'refused' },
    { label: 'changed', ours: 'bad-signature', theirs: 'refused' },
    { label: 'other secret', ours: 'bad-signature', theirs: 'refused' }
  ], 'the two agree on each')
})
