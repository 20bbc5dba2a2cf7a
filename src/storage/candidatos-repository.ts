import { sql, type CompiledQuery, type Kysely, type Selectable, type Transaction } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import type { Candidato, CandidatoFields, CandidatoStatus } from '../domain/candidato.js'
import { decide, needsTargetVaga, type ActionMethod, type CandidatoAction, type Move, type Refusal } from '../domain/candidato-actions.js'
import type { VagaStatus } from '../domain/vaga.js'
import type { Instant } from '../domain/instant.js'
import { isUniqueViolation } from './errors.js'
import { batchedLookup } from './batched-lookup.js'
import { rowsByIds } from './rows-by-ids.js'
import { compiledShapes, compiledStatement, type Slot } from './compiled-shapes.js'
import { batchedPages } from './batched-pages.js'
import { batchedWrites } from './batched-writes.js'
import { pageOf, pageQuery, pageShape, pageValues, prefixPattern, TOTAL, totalOf, type ListRequest, type ListResult, type SortColumn } from './listing.js'
import { CANDIDATO_COLUMNS, type CandidatosTable, type Schema } from './schema.js'
import type { Precondition, WriteOutcome } from './vagas-repository.js'

export interface VagaSummary {
  id: string
  titulo: string
  status: VagaStatus
  versao: number
  atualizadoEm: Instant
}

export interface CandidatoRecord extends Candidato {
  versao: number
  /** The vaga the candidato is in, summarised. */
  vaga: VagaSummary | null
}

export interface HistoricoEntry {
  acao: CandidatoAction
  metodo: ActionMethod
  statusAnterior: CandidatoStatus
  status: CandidatoStatus
  vagaAnteriorId: string | null
  vagaId: string | null
  /** Who acted (the caller's Principal.actor); `ator` is the API's word for it. */
  ator: string
  em: Instant
}

export interface CandidatoDetail extends CandidatoRecord {
  historico: HistoricoEntry[]
}

export const CANDIDATO_SORT_FIELDS = ['criadoEm', 'atualizadoEm', 'nome', 'email'] as const
export type CandidatoSortField = typeof CANDIDATO_SORT_FIELDS[number]

export interface CandidatoFilter {
  status?: CandidatoStatus
  vagaId?: string
  /** Start of the name or of the address, any case. */
  q?: string
}

const SORT_COLUMNS: Record<CandidatoSortField, SortColumn> = {
  criadoEm: { column: 'c.criado_em', kind: 'timestamp' },
  atualizadoEm: { column: 'c.atualizado_em', kind: 'timestamp' },
  nome: { column: 'c.nome', kind: 'text' },
  email: { column: 'c.email', kind: 'text' }
}

/** Another candidato already has this address (in any case). */
export class DuplicateEmailError extends Error {
  override name = 'DuplicateEmailError'
}

export type MoveOutcome =
  | WriteOutcome<CandidatoDetail>
  | { outcome: 'refused', refusal: Refusal }
  | { outcome: 'target-not-found', vagaId: string }

export interface MoveRequest {
  move: Move
  /** The destination of candidatar and transferir. */
  vagaId?: string
  /** Who acts (Principal.actor), kept in the history as the entry's `ator`. */
  actor: string
  precondition?: Precondition<CandidatoDetail>
}

type Executor = Kysely<Schema> | Transaction<Schema>

function base (db: Executor) {
  return db.selectFrom('candidatos as c')
    .leftJoin('vagas as v', 'v.id', 'c.vaga_id')
    .select([
      'c.id', 'c.nome', 'c.email', 'c.status', 'c.vaga_id', 'c.transferido_de', 'c.criado_em', 'c.atualizado_em', 'c.versao',
      'v.titulo as vaga_titulo', 'v.status as vaga_status', 'v.versao as vaga_versao', 'v.atualizado_em as vaga_atualizado_em'
    ])
}

type Row = Awaited<ReturnType<ReturnType<typeof base>['executeTakeFirstOrThrow']>>

/** The candidato's own columns, as the domain names them. */
function ownFields (row: Selectable<CandidatosTable>): Omit<CandidatoRecord, 'vaga'> {
  return {
    id: row.id,
    nome: row.nome,
    email: row.email,
    status: row.status,
    vagaId: row.vaga_id,
    transferidoDe: row.transferido_de,
    criadoEm: row.criado_em,
    atualizadoEm: row.atualizado_em,
    versao: row.versao
  }
}

function toRecord (row: Row): CandidatoRecord {
  return {
    ...ownFields(row),
    vaga: row.vaga_id === null || row.vaga_titulo === null || row.vaga_status === null || row.vaga_versao === null || row.vaga_atualizado_em === null
      ? null
      : { id: row.vaga_id, titulo: row.vaga_titulo, status: row.vaga_status, versao: row.vaga_versao, atualizadoEm: row.vaga_atualizado_em }
  }
}

/** Candidatos with their history, in one round trip. */
function detailQuery (db: Executor) {
  return base(db)
    .select(eb => jsonArrayFrom(
      eb.selectFrom('candidato_acoes as a')
        .select(['a.acao', 'a.metodo', 'a.status_anterior', 'a.status_novo', 'a.vaga_anterior_id', 'a.vaga_id', 'a.ator', 'a.em'])
        .whereRef('a.candidato_id', '=', 'c.id')
        .orderBy('a.id')
    ).as('historico'))
}

type DetailRow = Row & { historico: Array<{ acao: CandidatoAction, metodo: ActionMethod, status_anterior: CandidatoStatus, status_novo: CandidatoStatus, vaga_anterior_id: string | null, vaga_id: string | null, ator: string, em: string }> }

function toDetail (row: DetailRow): CandidatoDetail {
  return {
    ...toRecord(row),
    historico: row.historico.map(entry => ({
      acao: entry.acao,
      metodo: entry.metodo,
      statusAnterior: entry.status_anterior,
      status: entry.status_novo,
      vagaAnteriorId: entry.vaga_anterior_id,
      vagaId: entry.vaga_id,
      ator: entry.ator,
      // json_agg writes timestamps in its own form (`2026-05-04T13:45:12.34+00:00`).
      em: new Date(entry.em).toISOString()
    }))
  }
}

/**
 * The statements of one fixed shape that reads and writes of single candidatos send, each compiled
 * once: a request only binds its values (see compiled-shapes.ts).
 */
function fixedStatements (db: Kysely<Schema>) {
  return {
    detail: compiledStatement<DetailRow>(slot => detailQuery(db).where('c.id', '=', slot<string>('id'))),
    /** The current candidato with its history, its row locked until the transaction ends. */
    lockedDetail: compiledStatement<DetailRow>(slot => detailQuery(db).where('c.id', '=', slot<string>('id')).forUpdate('c')),
    /** Shared lock: the vaga can neither close nor disappear until the transaction ends. */
    sharedVaga: compiledStatement(slot => db.selectFrom('vagas').select(['id', 'titulo', 'status', 'versao', 'atualizado_em']).where('id', '=', slot<string>('id')).forShare()),
    /** New candidatos, `cadastrado`, one per element of the arrays of names and addresses. */
    insertMany: compiledStatement<Selectable<CandidatosTable>>(slot => ({
      compile: () => sql<Selectable<CandidatosTable>>`insert into candidatos (nome, email, status) select nome, email, 'cadastrado' from unnest(${slot('nomes')}::text[], ${slot('emails')}::text[]) as p(nome, email) returning ${sql.join(CANDIDATO_COLUMNS.map(column => sql.ref(column)))}`.compile(db)
    })),
    /**
     * A move and its history entry in one statement; what they wrote comes back with it. The update
     * matches only the status the decision was made on.
     */
    move: compiledStatement<{ atualizado_em: Instant, versao: number, em: Instant }>(slot => ({
      compile: () => sql<{ atualizado_em: Instant, versao: number, em: Instant }>`with moved as (update candidatos set status = ${slot('status')}, vaga_id = ${slot('vagaId')}, transferido_de = ${slot('transferidoDe')}, atualizado_em = now(), versao = versao + 1 where id = ${slot('id')} and status = ${slot('statusAnterior')} returning atualizado_em, versao), acao as (insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator) values (${slot('id')}, ${slot('acao')}, ${slot('metodo')}, ${slot('statusAnterior')}, ${slot('status')}, ${slot('vagaAnteriorId')}, ${slot('vagaId')}, ${slot('ator')}) returning em) select moved.atualizado_em, moved.versao, acao.em from moved, acao`.compile(db)
    }))
  }
}

async function duplicateEmailAware<T> (work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (isUniqueViolation(error, 'candidatos_email_unique')) throw new DuplicateEmailError('Another candidato has this e-mail address.')
    throw error
  }
}

export function createCandidatosRepository (db: Kysely<Schema>) {
  const detailRows = rowsByIds(db, detailQuery(db), 'c.id')
  const pages = batchedPages(db)
  const counts = compiledShapes<{ count: number }>()
  const statements = fixedStatements(db)
  // Creates made together are one statement; each gets its row back by its address, unique in the batch.
  const insert = batchedWrites<CandidatoFields, Selectable<CandidatosTable>>(async fields => {
    const { rows } = await db.executeQuery(statements.insertMany({ nomes: fields.map(each => each.nome), emails: fields.map(each => each.email) }))
    const byEmail = new Map(rows.map(row => [row.email, row]))
    return fields.map(each => byEmail.get(each.email) ?? new Error('the insert returned no row for this address'))
  })
  const detailOf = async (executor: Executor, statement: CompiledQuery<DetailRow>): Promise<CandidatoDetail | undefined> => {
    const row = (await executor.executeQuery(statement)).rows[0]
    return row === undefined ? undefined : toDetail(row)
  }
  const findDetail = (executor: Executor, id: string) => detailOf(executor, statements.detail({ id }))
  const lockDetail = (trx: Transaction<Schema>, id: string) => detailOf(trx, statements.lockedDetail({ id }))
  return {
    findById: batchedLookup(async ids => (await detailRows(ids)).map(row => toDetail(row as DetailRow))),

    async list (request: ListRequest<CandidatoSortField, CandidatoFilter>): Promise<ListResult<CandidatoRecord>> {
      const { status, vagaId, q } = request.filter
      const filtered = (query: ReturnType<typeof base>, slot: Slot) => {
        if (status !== undefined) query = query.where('c.status', '=', slot<CandidatoStatus>('status', 'text'))
        if (vagaId !== undefined) query = query.where('c.vaga_id', '=', slot<string>('vagaId', 'uuid'))
        if (q !== undefined) {
          const pattern = slot<string>('pattern', 'text')
          query = query.where(eb => eb.or([
            eb(sql<string>`lower(c.nome)`, 'like', pattern),
            eb(sql<string>`lower(c.email)`, 'like', pattern)
          ]))
        }
        return query
      }
      const page = request.page
      const filters = `${status === undefined ? '' : 's'}${vagaId === undefined ? '' : 'v'}${q === undefined ? '' : 'q'}`
      const shape = `${filters};${pageShape(request)}`
      const values = { status, vagaId, pattern: q === undefined ? undefined : prefixPattern(q), ...pageValues(request, SORT_COLUMNS) }
      if (page.kind !== 'offset') {
        const rows = await pages(shape, slot => pageQuery(filtered(base(db), slot), request, SORT_COLUMNS, 'c.id', slot), values)
        return pageOf(request, rows.map(toRecord), undefined)
      }
      const rows = await pages(shape, slot => pageQuery(filtered(base(db), slot), request, SORT_COLUMNS, 'c.id', slot).select(TOTAL), values)
      const count = async () => {
        const statement = counts(filters, slot => filtered(base(db), slot).clearSelect().select(eb => eb.fn.countAll<number>().as('count')), values)
        return Number((await db.executeQuery(statement)).rows[0]?.count ?? 0)
      }
      return pageOf(request, rows.map(toRecord), await totalOf(rows, page.offset, count))
    },

    /** A new candidato is `cadastrado`, in no vaga. Throws DuplicateEmailError. */
    async create (fields: CandidatoFields): Promise<CandidatoDetail> {
      return await duplicateEmailAware(async () => {
        const row = await insert(fields)
        return { ...ownFields(row), vaga: null, historico: [] }
      })
    },

    /** Replaces or patches name and address, when the precondition holds. Throws DuplicateEmailError. */
    async update (id: string, changes: Partial<CandidatoFields>, precondition?: Precondition<CandidatoDetail>): Promise<WriteOutcome<CandidatoDetail>> {
      return await duplicateEmailAware(() => db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(current)) return { outcome: 'precondition-failed' }
        await trx.updateTable('candidatos')
          .set({ ...changes, atualizado_em: sql<Date>`now()`, versao: sql<number>`versao + 1` })
          .where('id', '=', id)
          .execute()
        return { outcome: 'ok', value: (await findDetail(trx, id))! }
      }))
    },

    async remove (id: string, precondition?: Precondition<CandidatoDetail>): Promise<{ outcome: 'ok' | 'not-found' | 'precondition-failed' }> {
      return await db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(current)) return { outcome: 'precondition-failed' }
        await trx.deleteFrom('candidatos').where('id', '=', id).execute()
        return { outcome: 'ok' }
      })
    },

    /**
     * Performs or cancels an action as one transaction: the candidato row is locked, the state machine
     * decides on what is stored, and the change and its history entry are written together. Concurrent
     * actions on one candidato therefore queue, and each decides on the state the previous one left.
     */
    async applyMove (id: string, request: MoveRequest): Promise<MoveOutcome> {
      return await db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (request.precondition !== undefined && !request.precondition(current)) return { outcome: 'precondition-failed' }
        let target: VagaSummary | undefined
        if (needsTargetVaga(request.move)) {
          const vagaId = request.vagaId
          if (vagaId === undefined) throw new TypeError(`${request.move.action} needs a vagaId`)
          const [row] = (await trx.executeQuery(statements.sharedVaga({ id: vagaId }))).rows
          if (row === undefined) return { outcome: 'target-not-found', vagaId }
          target = { id: row.id, titulo: row.titulo, status: row.status, versao: row.versao, atualizadoEm: row.atualizado_em }
        }
        const decision = decide(current, request.move, target)
        if (!decision.allowed) return { outcome: 'refused', refusal: decision.refusal }
        const next = decision.next
        const entry = {
          acao: request.move.action,
          metodo: request.move.method,
          statusAnterior: current.status,
          status: next.status,
          vagaAnteriorId: current.vagaId,
          vagaId: next.vagaId,
          ator: request.actor
        }
        const { rows: [written] } = await trx.executeQuery(statements.move({ id, transferidoDe: next.transferidoDe, ...entry }))
        if (written === undefined) throw new Error(`candidato ${id} changed under its lock`)
        // The vaga it ends up in, as already read; only a return to an earlier vaga needs reading again.
        const vaga = next.vagaId === null ? null : next.vagaId === target?.id ? target : next.vagaId === current.vagaId ? current.vaga : undefined
        if (vaga === undefined) return { outcome: 'ok', value: (await findDetail(trx, id))! }
        return {
          outcome: 'ok',
          value: {
            ...current,
            ...next,
            atualizadoEm: written.atualizado_em,
            versao: written.versao,
            vaga,
            historico: [...current.historico, { ...entry, em: written.em }]
          }
        }
      })
    }
  }
}

export type CandidatosRepository = ReturnType<typeof createCandidatosRepository>
