import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import { compiledShapes, type Param } from './compiled-shapes.ts'
import { pageOf, pageQuery, pageShape, pageValues, type ListRequest, type ListResult, type SortColumn } from './listing.ts'
import { WEBHOOK_COLUMNS, type Schema, type WebhooksTable } from './schema.ts'
import { lockDispatchPosition } from './webhook-dispatch-position.ts'

export const WEBHOOK_SORT_FIELDS = ['criadoEm'] as const
export type WebhookSortField = typeof WEBHOOK_SORT_FIELDS[number]
const SORT_COLUMNS: Record<WebhookSortField, SortColumn> = { criadoEm: { column: 'criado_em', kind: 'timestamp' } }

/**
 * Whose subscriptions a caller reaches: its own (`owner`, its actor), or every one (webhooks:admin).
 * Another's is as if it did not exist.
 */
export type WebhookViewer = { owner: string } | { every: true }

export interface WebhookRecord {
  id: string
  url: string
  /** Empty: every event type. */
  tipos: string[]
  ativo: boolean
  /** Its creator's actor; null when made before owners were recorded. */
  criadoPor: string | null
  /** Which scopes that decide what it may receive (src/webhooks/readable-types.ts) its creator held. */
  escopos: string[]
  /** When failures disabled it (see recordAttempts); null otherwise. */
  desativadoEm: IsoTimestamp | null
  criadoEm: IsoTimestamp
  atualizadoEm: IsoTimestamp
}

export interface WebhookFields {
  url: string
  tipos: string[]
  ativo: boolean
}

/** The condition that keeps a statement to the viewer's subscriptions. */
function ownedBy (viewer: WebhookViewer) {
  return (eb: ExpressionBuilder<Schema, 'webhooks'>) => 'owner' in viewer ? eb('criado_por', '=', viewer.owner) : eb.lit(true)
}

function toRecord (row: Pick<Selectable<WebhooksTable>, typeof WEBHOOK_COLUMNS[number]>): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    tipos: row.tipos,
    ativo: row.ativo,
    criadoPor: row.criado_por,
    escopos: row.escopos,
    desativadoEm: row.desativado_em,
    criadoEm: row.criado_em,
    atualizadoEm: row.atualizado_em
  }
}

/** Webhook subscriptions: what routes create and change, with their signing secrets. */
export function createWebhooksRepository (db: Kysely<Schema>) {
  const pages = compiledShapes<Selectable<WebhooksTable>>()
  const visible = (viewer: WebhookViewer, param: Param) => {
    const query = db.selectFrom('webhooks')
    return 'owner' in viewer ? query.where('criado_por', '=', param<string>('owner')) : query
  }
  return {
    /**
     * Receives the events not dispatched yet: none is dispatched past it unseen (see lockDispatchPosition).
     * `'full'` when `max` subscriptions exist: creations take that lock in turn, so two at once cannot
     * both pass the count.
     */
    async create (fields: WebhookFields, creator: { actor: string, readScopes: string[] }, secret: string, max: number): Promise<WebhookRecord | 'full'> {
      return await db.transaction().execute(async trx => {
        const { after } = await lockDispatchPosition(trx)
        const { count } = await trx.selectFrom('webhooks').select(eb => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow()
        if (Number(count) >= max) return 'full'
        const row = await trx.insertInto('webhooks')
          .values({ ...fields, criado_por: creator.actor, escopos: creator.readScopes, segredo: secret, desde_evento: after })
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirstOrThrow()
        return toRecord(row)
      })
    },

    /** A page of the subscriptions the viewer reaches. */
    async list (request: ListRequest<WebhookSortField, Record<string, never>>, viewer: WebhookViewer): Promise<ListResult<WebhookRecord>> {
      const shape = `${'owner' in viewer ? 'o' : ''};${pageShape(request)}`
      const values = { ...('owner' in viewer && { owner: viewer.owner }), ...pageValues(request, SORT_COLUMNS) }
      const statement = pages(shape, param => pageQuery(visible(viewer, param).select(WEBHOOK_COLUMNS), request, SORT_COLUMNS, 'id', param), values)
      const { rows } = await db.executeQuery(statement)
      return pageOf(request, rows.map(toRecord), undefined)
    },

    async findById (id: string, viewer: WebhookViewer): Promise<WebhookRecord | undefined> {
      const row = await db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where('id', '=', id).where(ownedBy(viewer)).executeTakeFirst()
      return row === undefined ? undefined : toRecord(row)
    },

    /**
     * Turning it on again forgets its failures (the period before disabling starts over), and a
     * disabled one gets the events not dispatched yet: deliveries of earlier ones still queued are
     * dropped, as they were while it was off.
     */
    async update (id: string, changes: Partial<WebhookFields>, viewer: WebhookViewer): Promise<WebhookRecord | undefined> {
      return await db.transaction().execute(async trx => {
        const enabling = changes.ativo === true
          ? { falhando_desde: null, desativado_em: null, desde_evento: sql<number>`case when ativo then desde_evento else ${(await lockDispatchPosition(trx)).after} end` }
          : {}
        const row = await trx.updateTable('webhooks')
          .set({ ...changes, ...enabling, atualizado_em: sql`now()` })
          .where('id', '=', id)
          .where(ownedBy(viewer))
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirst()
        return row === undefined ? undefined : toRecord(row)
      })
    },

    async remove (id: string, viewer: WebhookViewer): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).where(ownedBy(viewer)).executeTakeFirst()
      return result.numDeletedRows > 0n
    },

    /** Deliveries sent from now on are signed with the new secret only. */
    async replaceSecret (id: string, secret: string, viewer: WebhookViewer): Promise<boolean> {
      const result = await db.updateTable('webhooks').set({ segredo: secret, atualizado_em: sql`now()` }).where('id', '=', id).where(ownedBy(viewer)).executeTakeFirst()
      return result.numUpdatedRows > 0n
    }
  }
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>
