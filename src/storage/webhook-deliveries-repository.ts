import { sql, type Kysely } from 'kysely'
import type { IsoTimestamp } from '../domain/iso-timestamp.js'
import type { AttemptError } from '../domain/webhook-attempt.js'
import { WEBHOOK_ATTEMPT_COLUMNS, type Schema } from './schema.js'

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
  webhookId: string
  eventId: number
  messageId: string
  number: number
  outcome: { ok: boolean, durationMs: number, statusCode?: number, error?: AttemptError }
}

/**
 * What the delivery side reads and writes: a subscription's target and secret, and each attempt.
 * Attempts are kept as long as the events they delivered (`retentionHours`).
 */
export function createWebhookDeliveriesRepository (db: Kysely<Schema>, retentionHours: number) {
  return {
    /** Where and how to send, while the subscription exists and is enabled. */
    async target (webhookId: string): Promise<{ url: string, secret: string } | undefined> {
      const row = await db.selectFrom('webhooks').select(['url', 'segredo']).where('id', '=', webhookId).where('ativo', '=', true).executeTakeFirst()
      return row === undefined ? undefined : { url: row.url, secret: row.segredo }
    },

    /**
     * Records an attempt and the subscription's run of failures with it, in one statement: a success
     * ends the run; a failure that comes `disableAfterSeconds` or more after the run began disables it.
     * The subscription's row is written only when its state changes: every delivery of a healthy
     * subscription rewriting it would queue them all behind its row lock.
     */
    async recordAttempt (attempt: NewAttempt, disableAfterSeconds: number): Promise<{ enabled: boolean }> {
      const { ok, durationMs, statusCode, error } = attempt.outcome
      const { rows } = await sql<{ ativo: boolean }>`with tentativa as (
          insert into webhook_tentativas (webhook_id, evento_id, mensagem_id, numero, duracao_ms, codigo, resultado, erro)
          values (${attempt.webhookId}, ${attempt.eventId}, ${attempt.messageId}, ${attempt.number}, ${durationMs}, ${statusCode ?? null},
            ${ok ? 'sucesso' : 'falha'}, ${error ?? null})
        ), atual as (
          select id, ativo, falhando_desde, desde, desde <= now() - make_interval(secs => ${disableAfterSeconds}) as vencida
          from webhooks, lateral (select case when ${ok} then null else coalesce(falhando_desde, now()) end as desde) d
          where id = ${attempt.webhookId}
        ), mudou as (
          update webhooks w set falhando_desde = a.desde,
            ativo = w.ativo and not coalesce(a.vencida, false),
            desativado_em = case when w.ativo and a.vencida then now() else w.desativado_em end
          from atual a
          where w.id = a.id and (a.falhando_desde is distinct from a.desde or (a.ativo and a.vencida))
          returning w.ativo
        )
        select coalesce((select ativo from mudou), (select ativo from atual)) as ativo`.execute(db)
      return { enabled: rows[0]?.ativo ?? false }
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
