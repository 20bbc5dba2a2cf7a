import type { Kysely } from 'kysely'
import type { Schema } from '../../src/storage/schema.ts'
import { newSigningSecret } from '../../src/webhooks/signing-secret.ts'
import { startReceiver, type Receiver } from './webhook-receiver.ts'

/** A receiver, and an enabled subscription of every event to it, written straight into the database. */
export async function subscribedReceiver (t: { teardown: (fn: () => unknown) => void }, db: Kysely<Schema>): Promise<{ receiver: Receiver, webhookId: string }> {
  const receiver = await startReceiver(t)
  receiver.secret = newSigningSecret()
  const { id: webhookId } = await db.insertInto('webhooks').values({ url: receiver.url, tipos: [], ativo: true, criado_por: 'test', escopos: ['eventos:read'], segredo: receiver.secret, desde_evento: 0 })
    .returning('id').executeTakeFirstOrThrow()
  return { receiver, webhookId }
}
