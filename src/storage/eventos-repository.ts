import { sql, type Kysely } from 'kysely'
import type { SubjectKind } from '../domain/events.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import { numberCommittedEvents } from './event-log.ts'
import { withoutStatementDeadline } from './statement-deadline.ts'
import type { Schema } from './schema.ts'
import { storedCandidato } from './candidatos-repository.ts'
import { storedVaga } from './vagas-repository.ts'

export interface EventRecord {
  id: number
  type: string
  at: IsoTimestamp
  actor: string
  subject: { kind: SubjectKind, id: string }
  /** The subject's record after the change (see event-log.ts), or null for a removal. */
  data: unknown
}

export interface EventFilter {
  type?: string
  subjectId?: string
}

export interface EventPageRequest {
  filter: EventFilter
  /** The last position the reader saw; undefined reads from the oldest event kept. */
  after?: number
  limit: number
}

export interface EventPage {
  items: EventRecord[]
  /** Where the reader goes on from: nothing committed later can have an id at or below it. */
  next: number
}

/** A position older than what the retention purge removed: events after it may be gone. */
export class PurgedPositionError extends Error {
  override name = 'PurgedPositionError'
}

interface PageRow {
  removidos_ate: number
  ultimo: number | null
  id: number | null
  tipo: string
  em: IsoTimestamp
  ator: string
  sujeito_tipo: SubjectKind
  sujeito_id: string
  dados: unknown
}

const STORED_RECORDS: Record<SubjectKind, (data: object) => object> = { vaga: storedVaga, candidato: storedCandidato }

/** The subject's record as the current code knows it, whichever fields it was written with. */
function storedRecord (kind: SubjectKind, data: unknown): unknown {
  return data === null ? null : STORED_RECORDS[kind](data as object)
}

function recordOf (row: Omit<PageRow, 'removidos_ate' | 'ultimo'>): EventRecord {
  return { id: row.id!, type: row.tipo, at: row.em, actor: row.ator, subject: { kind: row.sujeito_tipo, id: row.sujeito_id }, data: storedRecord(row.sujeito_tipo, row.dados) }
}

/** The event feed: pages in id order (given after commit, see event-log.ts) and the retention purge. */
export function createEventosRepository (db: Kysely<Schema>, retentionHours: number) {
  return {
    async page ({ filter, after, limit }: EventPageRequest): Promise<EventPage> {
      await numberCommittedEvents(db)
      // One statement, one snapshot: the purge mark, the newest id and the page agree with each other.
      const { rows } = await sql<PageRow>`select r.removidos_ate, r.ultimo, p.id, p.tipo, p.em, p.ator, p.sujeito_tipo, p.sujeito_id, p.dados
        from (select coalesce((select removidos_ate from eventos_retencao), 0) as removidos_ate, (select max(id) from eventos) as ultimo) r
        left join lateral (
          select id, tipo, em, ator, sujeito_tipo, sujeito_id, dados from eventos
          where id > ${after ?? 0}
            and (${filter.type ?? null}::text is null or tipo = ${filter.type ?? null}::text)
            and (${filter.subjectId ?? null}::uuid is null or sujeito_id = ${filter.subjectId ?? null}::uuid)
          order by id limit ${limit}
        ) p on true
        order by p.id`.execute(db)
      const first = rows[0]!
      if (after !== undefined && after < first.removidos_ate) throw new PurgedPositionError(`events after ${after} may have been removed`)
      const items = rows.filter(row => row.id !== null).map(recordOf)
      const last = items.at(-1)?.id
      // A full page may have more after it; otherwise every visible event was looked at, and a later
      // commit draws a larger id than the newest visible one.
      const next = items.length === limit ? last! : Math.max(after ?? 0, first.removidos_ate, first.ultimo ?? 0, last ?? 0)
      return { items, next }
    },

    /** The events with these ids still kept, in id order. */
    async byIds (ids: readonly number[]): Promise<EventRecord[]> {
      const rows = await db.selectFrom('eventos').select(['id', 'tipo', 'em', 'ator', 'sujeito_tipo', 'sujeito_id', 'dados'])
        .where('id', '=', sql<number>`any(${[...ids]}::bigint[])`).orderBy('id').execute()
      return rows.map(recordOf)
    },

    /** Removes the events older than the retention time, and marks the newest id removed; returns how many. */
    async purgeExpired (): Promise<number> {
      // Events are removed once numbered, so the mark covers every one removed.
      await numberCommittedEvents(db)
      return await db.transaction().execute(async trx => {
        await withoutStatementDeadline(trx)
        const { rows } = await sql<{ removed: number }>`with gone as (
            delete from eventos where em < now() - make_interval(hours => ${retentionHours}) and id is not null returning id
          ), marked as (
            insert into eventos_retencao (unica, removidos_ate) select true, max(id) from gone having count(*) > 0
            on conflict (unica) do update set removidos_ate = greatest(eventos_retencao.removidos_ate, excluded.removidos_ate)
            returning 1
          )
          select (select count(*) from gone)::int as removed, (select count(*) from marked) as marked`.execute(trx)
        return rows[0]?.removed ?? 0
      })
    }
  }
}

export type EventosRepository = ReturnType<typeof createEventosRepository>
