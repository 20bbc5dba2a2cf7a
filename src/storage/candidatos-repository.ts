import { sql, type Kysely, type QueryCreator, type Transaction } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import { emailKey, type Candidato, type CandidatoFields, type CandidatoStatus } from '../domain/candidato.ts'
import { decide, needsTargetVaga, type ActionMethod, type CandidatoAction, type CandidatoState, type ActionCall, type Refusal } from '../domain/candidato-actions.ts'
import type { VagaStatus } from '../domain/vaga.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import { isUniqueViolation } from './errors.ts'
import { compiledShapes, compiledStatement, type Param } from './compiled-shapes.ts'
import { pageOf, pageQuery, pageShape, pageValues, prefixPattern, TOTAL, totalOf, type ListRequest, type ListResult, type SortColumn } from './listing.ts'
import { CANDIDATO_COLUMNS, nullRow, type CandidatoRow, type Schema } from './schema.ts'
import { actionEventType } from '../domain/events.ts'
import { appendEvents, type NewEvent } from './event-log.ts'
import { coalescedById } from './coalesced-reads.ts'
import type { Precondition, WriteOutcome } from './conditional-write.ts'

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

/** The vaga a candidato is in, summarised, beside the candidato's own columns. */
const VAGA_SUMMARY_COLUMNS = ['v.titulo as vaga_titulo', 'v.status as vaga_status', 'v.versao as vaga_versao', 'v.atualizado_em as vaga_atualizado_em'] as const

function base (db: Executor) {
  return db.selectFrom('candidatos as c')
    .leftJoin('vagas as v', 'v.id', 'c.vaga_id')
    .select(CANDIDATO_COLUMNS.map(column => `c.${column}` as const))
    .select(VAGA_SUMMARY_COLUMNS)
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

type SummaryColumns = { [K in 'vaga_id' | 'vaga_titulo' | 'vaga_status' | 'vaga_versao' | 'vaga_atualizado_em']: NonNullable<Row[K]> }

function summaryOf (row: SummaryColumns): VagaSummary {
  return { id: row.vaga_id, titulo: row.vaga_titulo, status: row.vaga_status, versao: row.vaga_versao, atualizadoEm: row.vaga_atualizado_em }
}

function toRecord (row: Row): CandidatoRecord {
  return recordOf(row, row.vaga_id === null || row.vaga_titulo === null || row.vaga_status === null || row.vaga_versao === null || row.vaga_atualizado_em === null
    ? null
    : summaryOf(row as SummaryColumns))
}

const EMPTY_RECORD = recordOf(nullRow<CandidatoRow>(CANDIDATO_COLUMNS), null)
const EMPTY_SUMMARY = summaryOf(nullRow<SummaryColumns>(['vaga_id', 'vaga_titulo', 'vaga_status', 'vaga_versao', 'vaga_atualizado_em']))

/**
 * A candidato an event stored (candidatoEvent, eventOf), as the current code knows it: an event
 * written before a field existed lacks it, in the record or in its vaga's summary, and reads it as null.
 */
export function storedCandidato (data: object): CandidatoRecord {
  const stored = data as Partial<CandidatoRecord>
  return { ...EMPTY_RECORD, ...stored, vaga: stored.vaga === undefined || stored.vaga === null ? null : { ...EMPTY_SUMMARY, ...stored.vaga } }
}

/** The event of a change to a candidato written apart from the change (a vaga's removal): the candidato as a list shows it after. */
export function candidatoEvent (type: string, candidato: CandidatoRecord, actor: string): NewEvent {
  return { type, actor, subject: { kind: 'candidato', id: candidato.id }, data: candidato }
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

/** An allowed action, decided and not yet written. */
interface PlannedAction {
  next: CandidatoState
  entry: Omit<HistoricoEntry, 'em'>
}

/** What an action comes to on its candidato as locked: an outcome already, or a change to write. */
function planAction (request: ActionRequest, current: CandidatoDetail | undefined, target: VagaSummary | undefined): ActionOutcome | PlannedAction {
  if (current === undefined) return { outcome: 'not-found' }
  if (request.precondition !== undefined && !request.precondition(current)) return { outcome: 'precondition-failed' }
  if (needsTargetVaga(request.call) && target === undefined) return { outcome: 'target-not-found', vagaId: request.vagaId! }
  const decision = decide(current, request.call, target)
  if (!decision.allowed) return { outcome: 'refused', refusal: decision.refusal }
  const next = decision.next
  return {
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

/** An ISO 8601 instant in UTC, with milliseconds, as the API writes it (an IsoTimestamp). */
function isoInstant (column: string) {
  return sql`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

/**
 * The candidato of the CTE `changed` (its columns and its vaga's summary, as `base` selects them) as
 * its record in JSON: what recordOf and summaryOf make of the row, so an event written here reads
 * as one written from a record (candidatoEvent), by this release and the ones before it.
 */
function recordJson (changed: string) {
  const column = (name: string) => sql.ref(`${changed}.${name}`)
  return sql`jsonb_build_object('id', ${column('id')}, 'nome', ${column('nome')}, 'email', ${column('email')}, 'status', ${column('status')},
    'vagaId', ${column('vaga_id')}, 'transferidoDe', ${column('transferido_de')}, 'criadoEm', ${isoInstant(`${changed}.criado_em`)},
    'atualizadoEm', ${isoInstant(`${changed}.atualizado_em`)}, 'versao', ${column('versao')},
    'vaga', case when ${column('vaga_titulo')} is null then null else jsonb_build_object('id', ${column('vaga_id')}, 'titulo', ${column('vaga_titulo')},
      'status', ${column('vaga_status')}, 'versao', ${column('vaga_versao')}, 'atualizadoEm', ${isoInstant(`${changed}.vaga_atualizado_em`)}) end)`
}

/** Writes, in the statement that changed it, the event of the candidato the CTE `changed` holds. */
function eventOf (changed: string, param: Param) {
  return <DB extends Schema>(q: QueryCreator<DB>) => q.insertInto('eventos')
    .columns(['tipo', 'ator', 'sujeito_tipo', 'sujeito_id', 'dados'])
    .expression(sql`select ${param<string>('tipo')}, ${param<string>('ator')}, 'candidato', id, ${recordJson(changed)} from ${sql.table(changed)}`)
}

/**
 * The statements of a candidato's writes, each compiled once: a request only binds its values. Each
 * writes its change and its event in one statement: a create is a single round trip, a change or
 * an action one after its locks.
 */
function writeStatements (db: Kysely<Schema>) {
  return {
    lockedDetail: compiledStatement<DetailRow>(param => detailQuery(db).where('c.id', '=', param<string>('id')).forUpdate('c')),
    sharedVaga: compiledStatement(param => db.selectFrom('vagas').select(['id', 'titulo', 'status', 'versao', 'atualizado_em']).where('id', '=', param<string>('id')).forShare()),
    insert: compiledStatement(param => db
      .with('inserted', q => q.insertInto('candidatos')
        .values({ nome: param<string>('nome'), email: param<string>('email'), email_chave: param<string>('chave'), status: 'cadastrado' })
        .returning(CANDIDATO_COLUMNS))
      .with('r', q => q.selectFrom('inserted').leftJoin('vagas as v', 'v.id', 'inserted.vaga_id').selectAll('inserted').select(VAGA_SUMMARY_COLUMNS))
      .with('e', eventOf('r', param))
      .selectFrom('inserted').select(CANDIDATO_COLUMNS)),
    move: compiledStatement(param => db
      .with('m', q => q.updateTable('candidatos')
        .set({ status: param<CandidatoStatus>('status'), vaga_id: param<string | null>('vagaId'), transferido_de: param<string | null>('transferidoDe'), atualizado_em: sql<Date>`now()`, versao: sql<number>`versao + 1` })
        .where('id', '=', param<string>('id'))
        .returning(CANDIDATO_COLUMNS))
      .with('h', q => q.insertInto('candidato_acoes')
        .values({
          candidato_id: param<string>('id'),
          acao: param<CandidatoAction>('acao'),
          metodo: param<ActionMethod>('metodo'),
          status_anterior: param<CandidatoStatus>('statusAnterior'),
          status_novo: param<CandidatoStatus>('status'),
          vaga_anterior_id: param<string | null>('vagaAnteriorId'),
          vaga_id: param<string | null>('vagaId'),
          ator: param<string>('ator')
        })
        .returning('em'))
      .with('r', q => q.selectFrom('m').leftJoin('vagas as v', 'v.id', 'm.vaga_id').selectAll('m').select(VAGA_SUMMARY_COLUMNS))
      .with('e', eventOf('r', param))
      .selectFrom(['r', 'h']).selectAll('r').select('h.em')),
    // A field the request leaves out (null) keeps its value: the columns are not null.
    change: compiledStatement(param => db
      .with('u', q => q.updateTable('candidatos')
        .set({
          nome: sql<string>`coalesce(${param<string | null>('nome')}, nome)`,
          email: sql<string>`coalesce(${param<string | null>('email')}, email)`,
          email_chave: sql<string>`coalesce(${param<string | null>('chave')}, email_chave)`,
          atualizado_em: sql<Date>`now()`,
          versao: sql<number>`versao + 1`
        })
        .where('id', '=', param<string>('id'))
        .returning(CANDIDATO_COLUMNS))
      .with('r', q => q.selectFrom('u').leftJoin('vagas as v', 'v.id', 'u.vaga_id').selectAll('u').select(VAGA_SUMMARY_COLUMNS))
      .with('e', eventOf('r', param))
      .selectFrom('r').selectAll())
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
  const detailsByIds = compiledStatement<DetailRow>(param => detailQuery(db).where(sql<boolean>`c.id = any(${param<string[]>('ids')})`))
  const findDetails = async (executor: Executor, ids: readonly string[]): Promise<CandidatoDetail[]> =>
    (await executor.executeQuery(detailsByIds({ ids }))).rows.map(toDetail)
  const statements = writeStatements(db)
  /** The candidato with its history, its row locked until the transaction ends. */
  const lockDetail = async (trx: Transaction<Schema>, id: string): Promise<CandidatoDetail | undefined> => {
    const row = (await trx.executeQuery(statements.lockedDetail({ id }))).rows[0]
    return row === undefined ? undefined : toDetail(row)
  }
  /** The vaga, share-locked: it can neither close nor disappear until the transaction ends. */
  const shareVaga = async (trx: Transaction<Schema>, id: string): Promise<VagaSummary | undefined> => {
    const row = (await trx.executeQuery(statements.sharedVaga({ id }))).rows[0]
    return row === undefined ? undefined : { id: row.id, titulo: row.titulo, status: row.status, versao: row.versao, atualizadoEm: row.atualizado_em }
  }
  const filtered = (filter: CandidatoFilter, param: Param) => {
    let query = base(db)
    if (filter.status !== undefined) query = query.where('c.status', '=', param<CandidatoStatus>('status'))
    if (filter.vagaId !== undefined) query = query.where('c.vaga_id', '=', param<string>('vagaId'))
    if (filter.q !== undefined) {
      const pattern = param<string>('pattern')
      query = query.where(eb => eb.or([eb(sql<string>`lower(c.nome)`, 'like', pattern), eb(sql<string>`lower(c.email)`, 'like', pattern)]))
    }
    if (filter.changedAfter !== undefined) query = query.where('c.atualizado_em', '>', param<IsoTimestamp>('changedAfter'))
    return query
  }
  const pages = compiledShapes<Row & { total?: number }>()
  const counts = compiledShapes<{ count: number }>()

  return {
    findById: coalescedById(async ids => await findDetails(db, ids)),

    async list (request: ListRequest<CandidatoSortField, CandidatoFilter>): Promise<ListResult<CandidatoRecord>> {
      const { status, vagaId, q, changedAfter } = request.filter
      const filters = `${status === undefined ? '' : 's'}${vagaId === undefined ? '' : 'v'}${q === undefined ? '' : 'q'}${changedAfter === undefined ? '' : 'u'}`
      const values = { status, vagaId, pattern: q === undefined ? undefined : prefixPattern(q), changedAfter, ...pageValues(request, SORT_COLUMNS) }
      const page = request.page
      const withTotal = page.kind === 'offset'
      const statement = pages(`${filters};${pageShape(request)}`, param => {
        const query = pageQuery(filtered(request.filter, param), request, SORT_COLUMNS, 'c.id', param)
        return withTotal ? query.select(TOTAL) : query
      }, values)
      const rows = (await db.executeQuery(statement)).rows
      if (!withTotal) return pageOf(request, rows.map(toRecord), undefined)
      const count = async () => {
        const counting = counts(filters, param => filtered(request.filter, param).clearSelect().select(eb => eb.fn.countAll<number>().as('count')), values)
        return Number((await db.executeQuery(counting)).rows[0]?.count ?? 0)
      }
      return pageOf(request, rows.map(toRecord), await totalOf(rows as Array<{ total: number }>, page.offset, count))
    },

    /** A new candidato is `cadastrado`, in no vaga. Throws DuplicateEmailError. */
    async create (fields: CandidatoFields, actor: string): Promise<CandidatoDetail> {
      return await duplicateEmailAware(async () => {
        const { rows: [row] } = await db.executeQuery(statements.insert({ nome: fields.nome, email: fields.email, chave: emailKey(fields.email), tipo: 'candidato.criado', ator: actor }))
        return withHistorico(recordOf(row!, null), [])
      })
    },

    /** Replaces or patches name and address, when the precondition holds. Throws DuplicateEmailError. */
    async update (id: string, changes: Partial<CandidatoFields>, actor: string, precondition?: Precondition<CandidatoDetail>): Promise<WriteOutcome<CandidatoDetail>> {
      return await duplicateEmailAware(() => db.transaction().execute(async trx => {
        const current = await lockDetail(trx, id)
        if (current === undefined) return { outcome: 'not-found' }
        if (precondition !== undefined && !precondition(current)) return { outcome: 'precondition-failed' }
        const { nome = null, email = null } = changes
        const { rows: [row] } = await trx.executeQuery(statements.change({ id, nome, email, chave: email === null ? null : emailKey(email), tipo: 'candidato.alterado', ator: actor }))
        return { outcome: 'ok', value: withHistorico(toRecord(row!), current.historico) }
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
     * Performs or cancels an action in a transaction of its own: the destination vaga is share-locked,
     * then the candidato's row locked (vagas before candidatos, as removing a vaga takes them, so
     * concurrent transactions never wait on each other in a cycle); the state machine decides on what
     * is stored, and the change, its history entry and its event are written together. Concurrent
     * actions on one candidato therefore queue, and each decides on the state the previous one left.
     */
    async applyAction (id: string, request: ActionRequest): Promise<ActionOutcome> {
      if (needsTargetVaga(request.call) && request.vagaId === undefined) throw new TypeError(`${request.call.action} needs a vagaId`)
      return await db.transaction().execute(async trx => {
        const target = needsTargetVaga(request.call) ? await shareVaga(trx, request.vagaId!) : undefined
        const current = await lockDetail(trx, id)
        const plan = planAction(request, current, target)
        if (!('entry' in plan)) return plan
        const { next, entry } = plan
        // The entry's `status` and `vagaId` are the new ones: the update writes them, the history keeps them.
        const { rows: [moved] } = await trx.executeQuery(statements.move({ id, ...entry, transferidoDe: next.transferidoDe, tipo: actionEventType({ action: entry.acao, method: entry.metodo }) }))
        const { em, ...row } = moved!
        return { outcome: 'ok', value: withHistorico(toRecord(row), [...current!.historico, { ...entry, em }]) }
      })
    }
  }
}

export type CandidatosRepository = ReturnType<typeof createCandidatosRepository>
