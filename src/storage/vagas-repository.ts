import { sql, type Kysely, type Selectable } from 'kysely'
import type { Vaga, VagaFields, VagaStatus } from '../domain/vaga.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import { isForeignKeyViolation } from './errors.ts'
import { compiledShapes, compiledStatement, type Param } from './compiled-shapes.ts'
import { pageOf, pageQuery, pageShape, pageValues, prefixPattern, TOTAL, totalOf, type ListRequest, type ListResult, type SortColumn } from './listing.ts'
import { nullRow, VAGA_COLUMNS, type Schema, type VagasTable } from './schema.ts'
import { appendEvents, type NewEvent } from './event-log.ts'
import { inTransaction } from './in-transaction.ts'
import type { Precondition, WriteOutcome } from './conditional-write.ts'
import { candidatoEvent, candidatoRecords } from './candidatos-repository.ts'

export interface VagaRecord extends Vaga {
  /** Grows by one on every change. */
  versao: number
}

export const VAGA_SORT_FIELDS = ['criadoEm', 'atualizadoEm', 'titulo'] as const
export type VagaSortField = typeof VAGA_SORT_FIELDS[number]

export interface VagaFilter {
  status?: VagaStatus
  /** Start of the title, any case. */
  q?: string
  /** Only the vagas changed after this instant. */
  changedAfter?: IsoTimestamp
}

const SORT_COLUMNS: Record<VagaSortField, SortColumn> = {
  criadoEm: { column: 'criado_em', kind: 'timestamp' },
  atualizadoEm: { column: 'atualizado_em', kind: 'timestamp' },
  titulo: { column: 'titulo', kind: 'text' }
}

export type RemoveVagaOutcome = { outcome: 'ok' | 'not-found' | 'precondition-failed' | 'has-candidatos' }

function toRecord (row: Selectable<VagasTable>): VagaRecord {
  return {
    id: row.id,
    titulo: row.titulo,
    descricao: row.descricao,
    status: row.status,
    criadoEm: row.criado_em,
    atualizadoEm: row.atualizado_em,
    versao: row.versao
  }
}

const EMPTY_RECORD = toRecord(nullRow<Selectable<VagasTable>>(VAGA_COLUMNS))

/** A vaga an event stored (vagaEvent), as the current code knows it: a field the event was written without reads as null. */
export function storedVaga (data: object): VagaRecord {
  return { ...EMPTY_RECORD, ...data }
}

function vagaEvent (type: string, vaga: VagaRecord, actor: string): NewEvent {
  return { type, actor, subject: { kind: 'vaga', id: vaga.id }, data: vaga }
}

export function createVagasRepository (db: Kysely<Schema>) {
  function where (filter: VagaFilter, param: Param) {
    let query = db.selectFrom('vagas')
    if (filter.status !== undefined) query = query.where('status', '=', param<VagaStatus>('status'))
    if (filter.q !== undefined) query = query.where(sql<string>`lower(titulo)`, 'like', param<string>('pattern'))
    if (filter.changedAfter !== undefined) query = query.where('atualizado_em', '>', param<IsoTimestamp>('changedAfter'))
    return query
  }

  const byId = compiledStatement(param => db.selectFrom('vagas').select(VAGA_COLUMNS).where('id', '=', param<string>('id')))
  const pages = compiledShapes<Selectable<VagasTable> & { total?: number }>()
  const counts = compiledShapes<{ count: number }>()
  return {
    async findById (id: string): Promise<VagaRecord | undefined> {
      const row = (await db.executeQuery(byId({ id }))).rows[0]
      return row === undefined ? undefined : toRecord(row)
    },

    async exists (id: string): Promise<boolean> {
      const row = await db.selectFrom('vagas').select('id').where('id', '=', id).executeTakeFirst()
      return row !== undefined
    },

    async list (request: ListRequest<VagaSortField, VagaFilter>): Promise<ListResult<VagaRecord>> {
      const { status, q, changedAfter } = request.filter
      const filters = `${status === undefined ? '' : 's'}${q === undefined ? '' : 'q'}${changedAfter === undefined ? '' : 'u'}`
      const values = { status, pattern: q === undefined ? undefined : prefixPattern(q), changedAfter, ...pageValues(request, SORT_COLUMNS) }
      const page = request.page
      const withTotal = page.kind === 'offset'
      const statement = pages(`${filters};${pageShape(request)}`, param => {
        const query = pageQuery(where(request.filter, param).select(VAGA_COLUMNS), request, SORT_COLUMNS, 'id', param)
        return withTotal ? query.select(TOTAL) : query
      }, values)
      const rows = (await db.executeQuery(statement)).rows
      if (!withTotal) return pageOf(request, rows.map(toRecord), undefined)
      const count = async () => {
        const counting = counts(filters, param => where(request.filter, param).select(eb => eb.fn.countAll<number>().as('count')), values)
        return Number((await db.executeQuery(counting)).rows[0]?.count ?? 0)
      }
      return pageOf(request, rows.map(toRecord), await totalOf(rows as Array<{ total: number }>, page.offset, count))
    },

    async create (fields: VagaFields, actor: string): Promise<VagaRecord> {
      return await inTransaction(db, async trx => {
        const vaga = toRecord(await trx.insertInto('vagas').values(fields).returning(VAGA_COLUMNS).executeTakeFirstOrThrow())
        await appendEvents(trx, [vagaEvent('vaga.criada', vaga, actor)])
        return vaga
      })
    },

    /** Replaces or patches the given fields, when the precondition (If-Match) holds. */
    async update (id: string, changes: Partial<VagaFields>, actor: string, precondition?: Precondition<VagaRecord>): Promise<WriteOutcome<VagaRecord>> {
      return await db.transaction().execute(async trx => {
        const current = await trx.selectFrom('vagas').select(VAGA_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst()
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(toRecord(current))) return { outcome: 'precondition-failed' }
        const row = await trx.updateTable('vagas')
          .set({ ...changes, atualizado_em: sql<Date>`now()`, versao: sql<number>`versao + 1` })
          .where('id', '=', id)
          .returning(VAGA_COLUMNS)
          .executeTakeFirstOrThrow()
        const vaga = toRecord(row)
        await appendEvents(trx, [vagaEvent('vaga.alterada', vaga, actor)])
        return { outcome: 'ok', value: vaga }
      })
    },

    /** Removes a vaga that no candidato is in; candidatos who came from it can no longer go back. */
    async remove (id: string, actor: string, precondition?: Precondition<VagaRecord>): Promise<RemoveVagaOutcome> {
      try {
        return await db.transaction().execute(async trx => {
          const current = await trx.selectFrom('vagas').select(VAGA_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst()
          if (current === undefined) return { outcome: 'not-found' }
          if (precondition !== undefined && !precondition(toRecord(current))) return { outcome: 'precondition-failed' }
          const occupied = await trx.selectFrom('candidatos').select('id').where('vaga_id', '=', id).limit(1).executeTakeFirst()
          if (occupied !== undefined) return { outcome: 'has-candidatos' }
          // The cancel-transfer link of those candidatos disappears: their representation changes.
          const unlinked = await trx.updateTable('candidatos')
            .set({ transferido_de: null, atualizado_em: sql<Date>`now()`, versao: sql<number>`versao + 1` })
            .where('transferido_de', '=', id)
            .returning('id')
            .execute()
          await trx.deleteFrom('vagas').where('id', '=', id).execute()
          const changed = await candidatoRecords(trx, unlinked.map(row => row.id))
          await appendEvents(trx, [
            { type: 'vaga.removida', actor, subject: { kind: 'vaga', id }, data: null },
            ...changed.map(candidato => candidatoEvent('candidato.alterado', candidato, actor))
          ])
          return { outcome: 'ok' }
        })
      } catch (error) {
        // A candidato applied between the check and the delete: the foreign key keeps the rule.
        if (isForeignKeyViolation(error)) return { outcome: 'has-candidatos' }
        throw error
      }
    }
  }
}

export type VagasRepository = ReturnType<typeof createVagasRepository>
