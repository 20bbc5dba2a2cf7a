import { sql, type Kysely } from 'kysely'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import type { AttemptError } from '../domain/webhook-attempt.ts'
import { WEBHOOK_ATTEMPT_COLUMNS, type Schema } from './schema.ts'

/**
 * Records attempts at deliveries to one subscription, and its run of failures with them, in one
 * statement: attempts that all succeeded end the run; any failure starts one (or goes on with it,
 * when none succeeded), and a failure `disableAfterSeconds` or more after the run began disables it,
 * as does a `410 Gone` at once: the receiver says it takes no more (the Standard Webhooks convention).
 * The subscription's row is written only when its state changes: every delivery of a healthy
 * subscription rewriting it would queue them all behind its row lock.
 */
export async function recordAttempts (db: Kysely<Schema>, webhookId: string, attempts: readonly NewAttempt[], disableAfterSeconds: number): Promise<RecordedAttempts> {
  const failed = attempts.some(attempt => !attempt.outcome.ok)
  const succeeded = attempts.some(attempt => attempt.outcome.ok)
  const gone = attempts.some(attempt => attempt.outcome.statusCode === 410)
  const column = <T>(pick: (attempt: NewAttempt) => T): T[] => attempts.map(pick)
  const { rows } = await sql<{ ativo: boolean, failing_seconds: number | null, recovered: boolean }>`with tentativa as (
      insert into webhook_tentativas (webhook_id, evento_id, mensagem_id, numero, duracao_ms, codigo, resultado, erro)
      select ${webhookId}, * from unnest(${column(a => a.eventId)}::bigint[], ${column(a => a.messageId)}::text[], ${column(a => a.number)}::int[],
        ${column(a => a.outcome.durationMs)}::int[], ${column(a => a.outcome.statusCode ?? null)}::int[],
        ${column(a => a.outcome.ok ? 'sucesso' : 'falha')}::text[], ${column(a => a.outcome.error ?? null)}::text[])
    ), atual as (
      select id, ativo, falhando_desde, desde, (${gone} or desde <= now() - make_interval(secs => ${disableAfterSeconds})) as vencida
      from webhooks, lateral (select case when not ${failed} then null when ${succeeded} then now() else coalesce(falhando_desde, now()) end as desde) d
      where id = ${webhookId}
    ), mudou as (
      update webhooks w set falhando_desde = a.desde,
        ativo = w.ativo and not coalesce(a.vencida, false),
        desativado_em = case when w.ativo and a.vencida then now() else w.desativado_em end
      from atual a
      where w.id = a.id and (a.falhando_desde is distinct from a.desde or (a.ativo and a.vencida))
      returning w.ativo
    )
    select coalesce((select ativo from mudou), (select ativo from atual)) as ativo,
      (select extract(epoch from now() - desde)::float8 from atual) as failing_seconds,
      coalesce((select falhando_desde is not null and desde is null from atual), false) as recovered`.execute(db)
  const row = rows[0]
  return { enabled: row?.ativo ?? false, failingSeconds: row?.failing_seconds ?? null, recovered: row?.recovered ?? false }
}

export interface RecordedAttempts {
  enabled: boolean
  /** How long the subscription has failed without a success, with these attempts; null while it is not failing. */
  failingSeconds: number | null
  /** These attempts ended its run of failures. */
  recovered: boolean
}

export interface AttemptRecord {
  id: number
  eventoId: number
  mensagemId: string
  numero: number
  em: IsoTimestamp
  duracaoMs: number
  codigo: number | null
  resultado: 'sucesso' | 'falha'
  erro: AttemptError | null
}

export interface NewAttempt {
  eventId: number
  messageId: string
  number: number
  outcome: { ok: boolean, durationMs: number, statusCode?: number, error?: AttemptError }
}

export interface DeliveryTarget {
  url: string
  secret: string
  /** How long its attempts have failed without a success; null while they do not. */
  failingSeconds: number | null
  /** Events up to this one are not delivered: they came before its creation, or while it was off. */
  afterEvent: number
}

/**
 * What the delivery side reads and writes: a subscription's target and secret, and each attempt.
 * Attempts are kept as long as the events they delivered (`retentionHours`).
 */
export function createWebhookDeliveriesRepository (db: Kysely<Schema>, retentionHours: number) {
  return {
    /**
     * Where and how to send, whether its last attempts failed, and the event its deliveries start
     * after, while the subscription exists and is enabled.
     */
    async target (webhookId: string): Promise<DeliveryTarget | undefined> {
      const row = await db.selectFrom('webhooks')
        .select(['url', 'segredo', 'desde_evento', sql<number | null>`extract(epoch from now() - falhando_desde)::float8`.as('failing_seconds')])
        .where('id', '=', webhookId).where('ativo', '=', true).executeTakeFirst()
      return row === undefined ? undefined : { url: row.url, secret: row.segredo, failingSeconds: row.failing_seconds, afterEvent: Number(row.desde_evento) }
    },

    /** Records attempts at deliveries to one subscription; see recordAttempts. */
    async recordAttempts (webhookId: string, attempts: readonly NewAttempt[], disableAfterSeconds: number): Promise<RecordedAttempts> {
      return await recordAttempts(db, webhookId, attempts, disableAfterSeconds)
    },

    async purgeExpiredAttempts (): Promise<number> {
      const result = await db.deleteFrom('webhook_tentativas').where(sql<boolean>`em < now() - make_interval(hours => ${retentionHours})`).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    /** The newest attempts first. */
    async listAttempts (webhookId: string, limit: number): Promise<AttemptRecord[]> {
      const rows = await db.selectFrom('webhook_tentativas').select(WEBHOOK_ATTEMPT_COLUMNS)
        .where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).execute()
      return rows.map(row => ({
        id: row.id,
        eventoId: row.evento_id,
        mensagemId: row.mensagem_id,
        numero: row.numero,
        em: row.em,
        duracaoMs: row.duracao_ms,
        codigo: row.codigo,
        resultado: row.resultado,
        erro: row.erro
      }))
    }
  }
}

export type WebhookDeliveriesRepository = ReturnType<typeof createWebhookDeliveriesRepository>
