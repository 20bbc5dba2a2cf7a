import { sql, type Kysely, type Selectable } from 'kysely'
import type { IsoTimestamp } from '../domain/iso-timestamp.js'
import { WEBHOOK_COLUMNS, type Schema, type WebhooksTable } from './schema.js'
import { lockDispatchPosition } from './webhook-dispatch-position.js'

export interface WebhookRecord {
  id: string
  url: string
  /** Empty: every event type. */
  tipos: string[]
  ativo: boolean
  /** When failures disabled it (see recordAttempt); null otherwise. */
  desativadoEm: IsoTimestamp | null
  criadoEm: IsoTimestamp
  atualizadoEm: IsoTimestamp
}

export interface WebhookFields {
  url: string
  tipos: string[]
  ativo: boolean
}

function toRecord (row: Pick<Selectable<WebhooksTable>, typeof WEBHOOK_COLUMNS[number]>): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    tipos: row.tipos,
    ativo: row.ativo,
    desativadoEm: row.desativado_em,
    criadoEm: row.criado_em,
    atualizadoEm: row.atualizado_em
  }
}

/** Webhook subscriptions: what routes create and change, with their signing secrets. */
export function createWebhooksRepository (db: Kysely<Schema>) {
  return {
    /**
     * Receives the events not dispatched yet: none is dispatched past it unseen (see lockDispatchPosition).
     * `'full'` when `max` subscriptions exist: creations take that lock in turn, so two at once cannot
     * both pass the count.
     */
    async create (fields: WebhookFields, secret: string, max: number): Promise<WebhookRecord | 'full'> {
      return await db.transaction().execute(async trx => {
        const { after } = await lockDispatchPosition(trx)
        const { count } = await trx.selectFrom('webhooks').select(eb => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow()
        if (Number(count) >= max) return 'full'
        const row = await trx.insertInto('webhooks')
          .values({ ...fields, segredo: secret, desde_evento: after })
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirstOrThrow()
        return toRecord(row)
      })
    },

    async list (): Promise<WebhookRecord[]> {
      const rows = await db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).orderBy('criado_em').orderBy('id').execute()
      return rows.map(toRecord)
    },

    async findById (id: string): Promise<WebhookRecord | undefined> {
      const row = await db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where('id', '=', id).executeTakeFirst()
      return row === undefined ? undefined : toRecord(row)
    },

    /**
     * Turning it on again forgets its failures (the period before disabling starts over), and a
     * disabled one gets the events not dispatched yet: deliveries of earlier ones still queued are
     * dropped, as they were while it was off.
     */
    async update (id: string, changes: Partial<WebhookFields>): Promise<WebhookRecord | undefined> {
      return await db.transaction().execute(async trx => {
        const enabling = changes.ativo === true
          ? { falhando_desde: null, desativado_em: null, desde_evento: sql<number>`case when ativo then desde_evento else ${(await lockDispatchPosition(trx)).after} end` }
          : {}
        const row = await trx.updateTable('webhooks')
          .set({ ...changes, ...enabling, atualizado_em: sql`now()` })
          .where('id', '=', id)
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirst()
        return row === undefined ? undefined : toRecord(row)
      })
    },

    async remove (id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst()
      return result.numDeletedRows > 0n
    },

    /** Deliveries sent from now on are signed with the new secret only. */
    async replaceSecret (id: string, secret: string): Promise<boolean> {
      const result = await db.updateTable('webhooks').set({ segredo: secret, atualizado_em: sql`now()` }).where('id', '=', id).executeTakeFirst()
      return result.numUpdatedRows > 0n
    }
  }
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>
