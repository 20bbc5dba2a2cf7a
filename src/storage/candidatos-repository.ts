import { sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import { emailKey, type Candidato, type CandidatoFields, type CandidatoStatus } from '../domain/candidato.js'
import { decide, needsTargetVaga, type ActionMethod, type CandidatoAction, type CandidatoState, type ActionCall, type Refusal } from '../domain/candidato-actions.js'
import type { VagaStatus } from '../domain/vaga.js'
import type { IsoTimestamp } from '../domain/iso-timestamp.js'
import { isUniqueViolation } from './errors.js'
import { batchedLookup } from './batched-lookup.js'
import { rowsByIds } from './rows-by-ids.js'
import { compiledShapes, compiledStatement, type Param } from './compiled-shapes.js'
import { batchedPages } from './batched-pages.js'
import { batchedPerTurn } from './turn-batches.js'
import { eachAloneOnFailure } from './batch-failure.js'
import { pageGoesAlone, pageOf, pageQuery, pageShape, pageValues, prefixPattern, TOTAL, totalOf, type ListRequest, type ListResult, type SortColumn } from './listing.js'
import { CANDIDATO_COLUMNS, type CandidatoRow, type Schema } from './schema.js'
import { actionEventType } from '../domain/events.js'
import { appendEvents, type NewEvent } from './event-log.js'
import { inTransaction } from './in-transaction.js'
import type { Precondition, WriteOutcome } from './vagas-repository.js'

export interface VagaSummary {
  id: string
  titulo: string
  status: VagaStatus
  versao: number
  atualizadoEm: IsoTimestamp
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
  em: IsoTimestamp
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
  /** Only the candidatos changed after this instant. */
  changedAfter?: IsoTimestamp
}

const SORT_COLUMNS: Record<CandidatoSortField, SortColumn> = {
  criadoEm: { column: 'c.criado_em', kind: 'timestamp' },
  atualizadoEm: { column: 'c.atualizado_em', kind: 'timestamp' },
  nome: { column: 'c.nome', kind: 'text' },
  email: { column: 'c.email', kind: 'text' }
}

/** Another candidato already has this address (see emailKey). */
export class DuplicateEmailError extends Error {
  override name = 'DuplicateEmailError'
}

export type ActionOutcome =
  | WriteOutcome<CandidatoDetail>
  | { outcome: 'refused', refusal: Refusal }
  | { outcome: 'target-not-found', vagaId: string }

export interface ActionRequest {
  call: ActionCall
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

// Records are built as one object literal each, never spread into another: V8 copies a spread
// property by property, and on a page of records that showed in a list's profile.

/** The candidato's own columns, as the domain names them, and the vaga it is in. */
function recordOf (row: CandidatoRow, vaga: VagaSummary | null): CandidatoRecord {
  return {
    id: row.id,
    nome: row.nome,
    email: row.email,
    status: row.status,
    vagaId: row.vaga_id,
    transferidoDe: row.transferido_de,
    criadoEm: row.criado_em,
    atualizadoEm: row.atualizado_em,
    versao: row.versao,
    vaga
  }
}

function toRecord (row: Row): CandidatoRecord {
  return recordOf(row, row.vaga_id === null || row.vaga_titulo === null || row.vaga_status === null || row.vaga_versao === null || row.vaga_atualizado_em === null
    ? null
    : { id: row.vaga_id, titulo: row.vaga_titulo, status: row.vaga_status, versao: row.vaga_versao, atualizadoEm: row.vaga_atualizado_em })
}

/** The record alone, without a history the detail may carry: what an event keeps of a candidato. */
function recordOnly (candidato: CandidatoRecord): CandidatoRecord {
  return recordOf({
    id: candidato.id,
    nome: candidato.nome,
    email: candidato.email,
    status: candidato.status,
    vaga_id: candidato.vagaId,
    transferido_de: candidato.transferidoDe,
    criado_em: candidato.criadoEm,
    atualizado_em: candidato.atualizadoEm,
    versao: candidato.versao
  }, candidato.vaga)
}

/** The event of a change to a candidato: the candidato as a list shows it after the change. */
export function candidatoEvent (type: string, candidato: CandidatoRecord, actor: string): NewEvent {
  return { type, actor, subject: { kind: 'candidato', id: candidato.id }, data: recordOnly(candidato) }
}

/** The candidatos with these ids, as lists show them, in the transaction. */
export async function candidatoRecords (trx: Transaction<Schema>, ids: readonly string[]): Promise<CandidatoRecord[]> {
  if (ids.length === 0) return []
  return (await base(trx).where('c.id', 'in', ids).orderBy('c.id').execute()).map(toRecord)
}

/** A record given its history: the record itself, which no one else holds yet, gains the field. */
function withHistorico (record: CandidatoRecord, historico: HistoricoEntry[]): CandidatoDetail {
  const detail = record as CandidatoDetail
  detail.historico = historico
  return detail
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
  return withHistorico(toRecord(row), row.historico.map(entry => ({
    acao: entry.acao,
    metodo: entry.metodo,
    statusAnterior: entry.status_anterior,
    status: entry.status_novo,
    vagaAnteriorId: entry.vaga_anterior_id,
    vagaId: entry.vaga_id,
    ator: entry.ator,
    // json_agg writes timestamps in its own form (`2026-05-04T13:45:12.34+00:00`).
    em: new Date(entry.em).toISOString()
  })))
}

/**
 * The statements of one fixed shape that reads and writes of single candidatos send, each compiled
 * once: a request only binds its values (see compiled-shapes.ts).
 */
function fixedStatements (db: Kysely<Schema>) {
  const lockedDetails = (param: Param) => detailQuery(db).where(sql<boolean>`c.id = any(${param<readonly string[]>('ids')}::uuid[])`).orderBy('c.id').forUpdate('c')
  const sharedVagas = (param: Param) => db.selectFrom('vagas').select(['id', 'titulo', 'status', 'versao', 'atualizado_em'])
    .where(sql<boolean>`id = any(${param<readonly string[]>('ids')}::uuid[])`).orderBy('id').forShare()
  return {
    detail: compiledStatement<DetailRow>(param => detailQuery(db).where('c.id', '=', param<string>('id'))),
    /** The candidatos with their history, their rows locked until the transaction ends, in id order. */
    lockedDetails: compiledStatement<DetailRow>(param => lockedDetails(param)),
    /** The same, leaving out the rows another transaction holds locked rather than waiting for them. */
    freeDetails: compiledStatement<DetailRow>(param => lockedDetails(param).skipLocked()),
    /** Shared locks: the vagas can neither close nor disappear until the transaction ends. */
    sharedVagas: compiledStatement(param => sharedVagas(param)),
    /** The same, leaving out the vagas another transaction is changing or removing. */
    freeVagas: compiledStatement(param => sharedVagas(param).skipLocked()),
    /**
     * New candidatos, `cadastrado`, one per element of the arrays of names and addresses; inserted in
     * the order of the unique index, so concurrent batches never wait on each other in a cycle.
     */
    insertMany: compiledStatement<CandidatoRow>(param => ({
      compile: () => sql<CandidatoRow>`insert into candidatos (nome, email, email_chave, status) select nome, email, email_chave, 'cadastrado' from unnest(${param('nomes')}::text[], ${param('emails')}::text[], ${param('chaves')}::text[]) as p(nome, email, email_chave) order by email_chave returning ${sql.join(CANDIDATO_COLUMNS.map(column => sql.ref(column)))}`.compile(db)
    })),
    /**
     * Actions (their candidatos' new state) and their history entries in one statement, one per element of the arrays; what they wrote
     * comes back by candidato. The update matches only the status each decision was made on.
     */
    actions: compiledStatement<{ id: string, atualizado_em: IsoTimestamp, versao: number, em: IsoTimestamp }>(param => ({
      compile: () => sql<{ id: string, atualizado_em: IsoTimestamp, versao: number, em: IsoTimestamp }>`with input as (select * from unnest(${param('ids')}::uuid[], ${param('statuses')}::text[], ${param('vagaIds')}::uuid[], ${param('transferidoDe')}::uuid[], ${param('statusAnterior')}::text[], ${param('acoes')}::text[], ${param('metodos')}::text[], ${param('vagaAnteriorIds')}::uuid[], ${param('atores')}::text[]) as i(id, status, vaga_id, transferido_de, status_anterior, acao, metodo, vaga_anterior_id, ator)), moved as (update candidatos c set status = i.status, vaga_id = i.vaga_id, transferido_de = i.transferido_de, atualizado_em = now(), versao = c.versao + 1 from input i where c.id = i.id and c.status = i.status_anterior returning c.id, c.atualizado_em, c.versao), acao as (insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator) select id, acao, metodo, status_anterior, status, vaga_anterior_id, vaga_id, ator from input returning candidato_id, em) select moved.id, moved.atualizado_em, moved.versao, acao.em from moved join acao on acao.candidato_id = moved.id`.compile(db)
    }))
  }
}

/** A create waiting for its turn's statement, with who asked for it. */
interface NewCandidato {
  fields: CandidatoFields
  actor: string
}

/** An action a shared transaction left out: its row was locked elsewhere; it is made alone afterwards. */
const LEFT_OUT = Symbol('left out')

interface QueuedAction {
  id: string
  request: ActionRequest
}

/** An allowed action, decided and not yet written. */
interface PlannedAction {
  id: string
  current: CandidatoDetail
  target?: VagaSummary
  next: CandidatoState
  entry: Omit<HistoricoEntry, 'em'>
}

/** What an action comes to on its candidato as locked: an outcome already, or a change to write. */
function planAction ({ id, request }: QueuedAction, current: CandidatoDetail | undefined, targets: ReadonlyMap<string, VagaSummary>): ActionOutcome | Error | PlannedAction {
  if (current === undefined) return { outcome: 'not-found' }
  if (request.precondition !== undefined && !request.precondition(current)) return { outcome: 'precondition-failed' }
  let target: VagaSummary | undefined
  if (needsTargetVaga(request.call)) {
    const vagaId = request.vagaId
    if (vagaId === undefined) return new TypeError(`${request.call.action} needs a vagaId`)
    target = targets.get(vagaId)
    if (target === undefined) return { outcome: 'target-not-found', vagaId }
  }
  const decision = decide(current, request.call, target)
  if (!decision.allowed) return { outcome: 'refused', refusal: decision.refusal }
  const next = decision.next
  return {
    id,
    current,
    target,
    next,
    entry: {
      acao: request.call.action,
      metodo: request.call.method,
      statusAnterior: current.status,
      status: next.status,
      vagaAnteriorId: current.vagaId,
      vagaId: next.vagaId,
      ator: request.actor
    }
  }
}

async function duplicateEmailAware<T> (work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (isUniqueViolation(error, 'candidatos_email_chave_unique')) throw new DuplicateEmailError('Another candidato has this e-mail address.')
    throw error
  }
}

export function createCandidatosRepository (db: Kysely<Schema>) {
  const detailRows = rowsByIds(db, detailQuery(db), 'c.id')
  const pages = batchedPages(db)
  const counts = compiledShapes<{ count: number }>()
  const statements = fixedStatements(db)
  // Creates made together are one statement; each gets its row back by its address, unique in the batch.
  const insertMany = async (inputs: readonly NewCandidato[]): Promise<Array<CandidatoRow | Error>> => await inTransaction(db, async trx => {
    const fields = inputs.map(input => input.fields)
    const { rows } = await trx.executeQuery(statements.insertMany({ nomes: fields.map(each => each.nome), emails: fields.map(each => each.email), chaves: fields.map(each => emailKey(each.email)) }))
    const byEmail = new Map(rows.map(row => [row.email, row]))
    const created = fields.map(each => byEmail.get(each.email) ?? new Error('the insert returned no row for this address'))
    await appendEvents(trx, created.flatMap((row, i) => row instanceof Error ? [] : [candidatoEvent('candidato.criado', recordOf(row, null), inputs[i]!.actor)]))
    return created
  })
  const insert = batchedPerTurn<NewCandidato, CandidatoRow>(async inputs => await eachAloneOnFailure(inputs, insertMany), 100)
  const detailOf = async (executor: Executor, statement: CompiledQuery<DetailRow>): Promise<CandidatoDetail | undefined> => {
    const row = (await executor.executeQuery(statement)).rows[0]
    return row === undefined ? undefined : toDetail(row)
  }
  const findDetail = (executor: Executor, id: string) => detailOf(executor, statements.detail({ id }))
  const lockDetail = (trx: Transaction<Schema>, id: string) => detailOf(trx, statements.lockedDetails({ ids: [id] }))

  /**
   * Actions on distinct candidatos in one transaction: their destination vagas share-locked, then their
   * rows locked, each in id order (vagas before candidatos, as removing a vaga takes them, so
   * concurrent transactions never wait on each other in a cycle); each action decided on its candidato
   * as stored, and every allowed action written in one statement.
   *
   * Actions of several clients never wait for a lock held outside the transaction: an action whose
   * candidato or destination another transaction holds is left out and made alone right after, in a
   * transaction of its own that waits for the lock. So a row one client's request keeps locked (a long
   * transaction, a vaga being removed) delays that client only, never the others sharing its turn.
   */
  const actionsInOneTransaction = async (calls: readonly QueuedAction[]): Promise<Array<ActionOutcome | Error | Promise<ActionOutcome>>> => {
    const alone = calls.length === 1
    const outcomes = await db.transaction().execute(async trx => await decideAndWrite(trx, calls, alone))
    return outcomes.map((outcome, i) => outcome === LEFT_OUT ? actionAlone(calls[i]!) : outcome)
  }
  const actionAlone = async (call: QueuedAction): Promise<ActionOutcome> => {
    const [outcome] = await actionsInOneTransaction([call])
    if (outcome instanceof Error) throw outcome
    return await outcome!
  }

  const decideAndWrite = async (trx: Transaction<Schema>, calls: readonly QueuedAction[], alone: boolean): Promise<Array<ActionOutcome | Error | typeof LEFT_OUT>> => {
    const vagaIds = [...new Set(calls.flatMap(({ request }) => needsTargetVaga(request.call) && request.vagaId !== undefined ? [request.vagaId] : []))]
    const targets = new Map<string, VagaSummary>()
    if (vagaIds.length > 0) {
      for (const row of (await trx.executeQuery((alone ? statements.sharedVagas : statements.freeVagas)({ ids: vagaIds }))).rows) {
        targets.set(row.id, { id: row.id, titulo: row.titulo, status: row.status, versao: row.versao, atualizadoEm: row.atualizado_em })
      }
    }
    const { rows } = await trx.executeQuery((alone ? statements.lockedDetails : statements.freeDetails)({ ids: calls.map(call => call.id) }))
    const locked = new Map(rows.map(row => [row.id, toDetail(row)]))
    // Shared, a row not returned may be held by another transaction (or not exist): that action goes alone.
    const leftOut = (call: QueuedAction) => !alone && (!locked.has(call.id) ||
      (needsTargetVaga(call.request.call) && call.request.vagaId !== undefined && !targets.has(call.request.vagaId)))
    const plans = calls.map(call => leftOut(call) ? LEFT_OUT : planAction(call, locked.get(call.id), targets))
    const planned = plans.filter((plan): plan is PlannedAction => plan !== LEFT_OUT && 'entry' in plan)
    const written = new Map<string, { atualizado_em: IsoTimestamp, versao: number, em: IsoTimestamp }>()
    if (planned.length > 0) {
      const values = {
        ids: planned.map(action => action.id),
        statuses: planned.map(action => action.entry.status),
        vagaIds: planned.map(action => action.entry.vagaId),
        transferidoDe: planned.map(action => action.next.transferidoDe),
        statusAnterior: planned.map(action => action.entry.statusAnterior),
        acoes: planned.map(action => action.entry.acao),
        metodos: planned.map(action => action.entry.metodo),
        vagaAnteriorIds: planned.map(action => action.entry.vagaAnteriorId),
        atores: planned.map(action => action.entry.ator)
      }
      for (const row of (await trx.executeQuery(statements.actions(values))).rows) written.set(row.id, row)
    }
    const outcomes: Array<ActionOutcome | Error | typeof LEFT_OUT> = []
    const events: NewEvent[] = []
    for (const plan of plans) {
      if (plan === LEFT_OUT || !('entry' in plan)) {
        outcomes.push(plan)
        continue
      }
      const { id, current, target, next, entry } = plan
      const row = written.get(id)
      if (row === undefined) throw new Error(`candidato ${id} changed under its lock`)
      // The vaga it ends up in, as already read; only a return to an earlier vaga needs reading again.
      const vaga = next.vagaId === null ? null : next.vagaId === target?.id ? target : next.vagaId === current.vagaId ? current.vaga : undefined
      const value: CandidatoDetail = vaga === undefined
        ? (await findDetail(trx, id))!
        : { ...current, ...next, atualizadoEm: row.atualizado_em, versao: row.versao, vaga, historico: [...current.historico, { ...entry, em: row.em }] }
      outcomes.push({ outcome: 'ok', value })
      events.push(candidatoEvent(actionEventType({ action: entry.acao, method: entry.metodo }), value, entry.ator))
    }
    await appendEvents(trx, events)
    return outcomes
  }

  // A candidato changes once per transaction: a later action on it in the same batch is made again once
  // this batch has committed, in a later batch, and is decided on what the earlier one left. The
  // batch's other actions are answered without waiting for it.
  const applyInBatches: (call: QueuedAction) => Promise<ActionOutcome> = batchedPerTurn<QueuedAction, ActionOutcome>(async calls => {
    const seen = new Set<string>()
    const first = calls.map(call => !seen.has(call.id) && seen.add(call.id) !== undefined)
    const done = eachAloneOnFailure(calls.filter((_, i) => first[i]), actionsInOneTransaction)
    const outcomes = (await done)[Symbol.iterator]()
    return calls.map((call, i) => first[i] ? outcomes.next().value! : done.then(async () => await applyInBatches(call)))
  }, 100)
  return {
    findById: batchedLookup(async ids => (await detailRows(ids)).map(row => toDetail(row as DetailRow))),

    async list (request: ListRequest<CandidatoSortField, CandidatoFilter>): Promise<ListResult<CandidatoRecord>> {
      const { status, vagaId, q, changedAfter } = request.filter
      const filtered = (query: ReturnType<typeof base>, param: Param) => {
        if (status !== undefined) query = query.where('c.status', '=', param<CandidatoStatus>('status', 'text'))
        if (vagaId !== undefined) query = query.where('c.vaga_id', '=', param<string>('vagaId', 'uuid'))
        if (q !== undefined) {
          const pattern = param<string>('pattern', 'text')
          query = query.where(eb => eb.or([
            eb(sql<string>`lower(c.nome)`, 'like', pattern),
            eb(sql<string>`lower(c.email)`, 'like', pattern)
          ]))
        }
        if (changedAfter !== undefined) query = query.where('c.atualizado_em', '>', param<IsoTimestamp>('changedAfter', 'timestamptz'))
        return query
      }
      const page = request.page
      const filters = `${status === undefined ? '' : 's'}${vagaId === undefined ? '' : 'v'}${q === undefined ? '' : 'q'}${changedAfter === undefined ? '' : 'u'}`
      const shape = `${filters};${pageShape(request)}`
      const values = { status, vagaId, pattern: q === undefined ? undefined : prefixPattern(q), changedAfter, ...pageValues(request, SORT_COLUMNS) }
      const sending = { alone: pageGoesAlone(request) }
      if (page.kind !== 'offset') {
        const rows = await pages(shape, param => pageQuery(filtered(base(db), param), request, SORT_COLUMNS, 'c.id', param), values, sending)
        return pageOf(request, rows.map(toRecord), undefined)
      }
      const rows = await pages(shape, param => pageQuery(filtered(base(db), param), request, SORT_COLUMNS, 'c.id', param).select(TOTAL), values, sending)
      const count = async () => {
        const statement = counts(filters, param => filtered(base(db), param).clearSelect().select(eb => eb.fn.countAll<number>().as('count')), values)
        return Number((await db.executeQuery(statement)).rows[0]?.count ?? 0)
      }
      return pageOf(request, rows.map(toRecord), await totalOf(rows, page.offset, count))
    },

    /** A new candidato is `cadastrado`, in no vaga. Throws DuplicateEmailError. */
    async create (fields: CandidatoFields, actor: string): Promise<CandidatoDetail> {
      return await duplicateEmailAware(async () => {
        const row = await insert({ fields, actor })
        return withHistorico(recordOf(row, null), [])
      })
    },

    /** Replaces or patches name and address, when the precondition holds. Throws DuplicateEmailError. */
    async update (id: string, changes: Partial<CandidatoFields>, actor: string, precondition?: Precondition<CandidatoDetail>): Promise<WriteOutcome<CandidatoDetail>> {
      return await duplicateEmailAware(() => db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(current)) return { outcome: 'precondition-failed' }
        await trx.updateTable('candidatos')
          .set({ ...changes, ...(changes.email === undefined ? {} : { email_chave: emailKey(changes.email) }), atualizado_em: sql<Date>`now()`, versao: sql<number>`versao + 1` })
          .where('id', '=', id)
          .execute()
        const value = (await findDetail(trx, id))!
        await appendEvents(trx, [candidatoEvent('candidato.alterado', value, actor)])
        return { outcome: 'ok', value }
      }))
    },

    async remove (id: string, actor: string, precondition?: Precondition<CandidatoDetail>): Promise<{ outcome: 'ok' | 'not-found' | 'precondition-failed' }> {
      return await db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(current)) return { outcome: 'precondition-failed' }
        await trx.deleteFrom('candidatos').where('id', '=', id).execute()
        await appendEvents(trx, [{ type: 'candidato.removido', actor, subject: { kind: 'candidato', id }, data: null }])
        return { outcome: 'ok' }
      })
    },

    /**
     * Performs or cancels an action in a transaction: the candidato row is locked, the state machine
     * decides on what is stored, and the change and its history entry are written together. Concurrent
     * actions on one candidato therefore queue, and each decides on the state the previous one left.
     * Actions made in the same turn share one transaction (see actionsInOneTransaction).
     */
    applyAction: (id: string, request: ActionRequest): Promise<ActionOutcome> => applyInBatches({ id, request })
  }
}

export type CandidatosRepository = ReturnType<typeof createCandidatosRepository>
