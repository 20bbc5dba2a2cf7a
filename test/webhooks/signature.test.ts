// The signature as a receiver checks it: with the `standardwebhooks` package, not our code.
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { signedHeaders } from '../../src/webhooks/signature.ts'
import { signingKey } from '../../src/webhooks/signing-secret.ts'
import { newSigningSecret } from '../../src/webhooks/signing-secret.ts'

const body = JSON.stringify({ type: 'vaga.criada', timestamp: '2026-05-04T13:45:12.345Z', data: { id: 1 } })
const now = (): number => Math.floor(Date.now() / 1000)

t.test('a delivery verifies with its secret', async t => {
  const secret = newSigningSecret()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the Standard Webhooks form, 32 bytes')
  t.same(new Webhook(secret).verify(body, { ...signedHeaders(signingKey(secret), 'msg_1', now(), body) }), JSON.parse(body))
})

t.test('a tampered body, another secret or an old timestamp does not', async t => {
  const secret = newSigningSecret()
  const headers = { ...signedHeaders(signingKey(secret), 'msg_1', now(), body) }
  t.throws(() => new Webhook(secret).verify(body.replace('vaga.criada', 'vaga.removida'), headers), 'tampered body')
  t.throws(() => new Webhook(newSigningSecret()).verify(body, headers), 'another secret')
  t.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' }), 'another message id')
  const replayed = { ...signedHeaders(signingKey(secret), 'msg_1', now() - 3600, body) }
  t.throws(() => new Webhook(secret).verify(body, replayed), 'an hour-old timestamp (a replay)')
})
