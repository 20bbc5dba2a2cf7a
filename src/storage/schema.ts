// The tables as Kysely sees them; each migration that adds a table adds its interface here.
import type { ColumnType, Generated, GeneratedAlways, Selectable } from 'kysely'
import type { CandidatoStatus } from '../domain/candidato.ts'
import type { ActionMethod, CandidatoAction } from '../domain/candidato-actions.ts'
import type { VagaStatus } from '../domain/vaga.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import type { AttemptError } from '../domain/webhook-attempt.ts'
import type { SubjectKind } from '../domain/events.ts'

/** Read as an IsoTimestamp (see timestamps.ts); written as a Date or left to the column default. */
type Timestamp = ColumnType<IsoTimestamp, Date | undefined, Date>

export interface VagasTable {
  id: Generated<string>
  titulo: string
  descricao: string | null
  status: VagaStatus
  criado_em: Timestamp
  atualizado_em: Timestamp
  versao: Generated<number>
}

export interface CandidatosTable {
  id: Generated<string>
  nome: string
  email: string
  /** The address as compared for uniqueness (domain/candidato.ts emailKey). */
  email_chave: string
  status: CandidatoStatus
  vaga_id: string | null
  transferido_de: string | null
  criado_em: Timestamp
  atualizado_em: Timestamp
  versao: Generated<number>
}

export interface CandidatoAcoesTable {
  id: GeneratedAlways<number>
  candidato_id: string
  acao: CandidatoAction
  metodo: ActionMethod
  status_anterior: CandidatoStatus
  status_novo: CandidatoStatus
  vaga_anterior_id: string | null
  vaga_id: string | null
  ator: string
  em: Timestamp
}

export interface IdempotencyKeysTable {
  scope: string
  key: string
  fingerprint: string
  status_code: number | null
  headers: Record<string, string> | null
  body: string | null
  created_at: Timestamp
}

export interface EventosTable {
  /** The order the events were written in. */
  ordem: GeneratedAlways<number>
  /** The feed's position, given after commit (see event-log.ts); null until then. */
  id: ColumnType<number | null, never, number>
  tipo: string
  em: Timestamp
  ator: string
  sujeito_tipo: SubjectKind
  sujeito_id: string
  /** The subject's record after the change, as JSON (see event-log.ts); null for a removal. */
  dados: unknown
}

export interface EventosRetencaoTable {
  unica: Generated<boolean>
  /** The newest event id the retention purge removed. */
  removidos_ate: number
}

export interface WebhooksTable {
  id: Generated<string>
  url: string
  tipos: string[]
  ativo: boolean
  segredo: string
  desde_evento: number
  falhando_desde: ColumnType<IsoTimestamp | null, Date | null | undefined, Date | null>
  desativado_em: ColumnType<IsoTimestamp | null, Date | null | undefined, Date | null>
  criado_em: Timestamp
  atualizado_em: Timestamp
  /** The creator's actor; null for those made before owners were recorded, seen by webhooks:admin alone. */
  criado_por: ColumnType<string | null, string, never>
  /** Which scopes that decide what it may receive its creator held (src/webhooks/readable-types.ts). */
  escopos: ColumnType<string[], string[], never>
}

export interface WebhookTentativasTable {
  id: GeneratedAlways<number>
  webhook_id: string
  evento_id: number
  mensagem_id: string
  numero: number
  em: Timestamp
  duracao_ms: number
  codigo: number | null
  resultado: 'sucesso' | 'falha'
  erro: AttemptError | null
}

export interface WebhookDespachoTable {
  unica: Generated<boolean>
  ate_evento: number
  movida_em: ColumnType<IsoTimestamp, never, Date>
}

// Statements name their columns, never `*`: a prepared statement keeps its result type, and a column a
// newer instance's migration adds would otherwise fail it ("cached plan must not change result type").
export const VAGA_COLUMNS = ['id', 'titulo', 'descricao', 'status', 'criado_em', 'atualizado_em', 'versao'] as const
export const CANDIDATO_COLUMNS = ['id', 'nome', 'email', 'status', 'vaga_id', 'transferido_de', 'criado_em', 'atualizado_em', 'versao'] as const
/** A candidato as statements return it: its columns but the comparison key. */
export type CandidatoRow = Pick<Selectable<CandidatosTable>, typeof CANDIDATO_COLUMNS[number]>
/**
 * A row of these columns, every one null: the record built from it has every current field, null,
 * which is what an event stored before a field existed reads for it (eventos-repository.ts).
 */
export function nullRow<Row> (columns: readonly string[]): Row {
  return Object.fromEntries(columns.map(column => [column, null])) as Row
}
export const IDEMPOTENCY_KEY_COLUMNS = ['scope', 'key', 'fingerprint', 'status_code', 'headers', 'body', 'created_at'] as const
export const WEBHOOK_COLUMNS = ['id', 'url', 'tipos', 'ativo', 'criado_por', 'escopos', 'desde_evento', 'falhando_desde', 'desativado_em', 'criado_em', 'atualizado_em'] as const
export const WEBHOOK_ATTEMPT_COLUMNS = ['id', 'evento_id', 'mensagem_id', 'numero', 'em', 'duracao_ms', 'codigo', 'resultado', 'erro'] as const

export interface Schema {
  vagas: VagasTable
  candidatos: CandidatosTable
  candidato_acoes: CandidatoAcoesTable
  idempotency_keys: IdempotencyKeysTable
  eventos: EventosTable
  eventos_retencao: EventosRetencaoTable
  webhooks: WebhooksTable
  webhook_tentativas: WebhookTentativasTable
  webhook_despacho: WebhookDespachoTable
}
