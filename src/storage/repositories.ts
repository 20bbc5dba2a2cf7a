import type { Kysely } from 'kysely'
import { createCandidatosRepository, type CandidatosRepository } from './candidatos-repository.ts'
import { createEventosRepository, type EventosRepository } from './eventos-repository.ts'
import { createIdempotencyRepository, type IdempotentOutcome, type IdempotentRequest, type StoredResponse } from './idempotency-repository.ts'
import type { Schema } from './schema.ts'
import { createWebhookDeliveriesRepository, type WebhookDeliveriesRepository } from './webhook-deliveries-repository.ts'
import { createWebhooksRepository, type WebhooksRepository } from './webhooks-repository.ts'
import { createVagasRepository, type VagasRepository } from './vagas-repository.ts'

/** The resource repositories, over the database or over one transaction. */
export interface ResourceRepositories {
  vagas: VagasRepository
  candidatos: CandidatosRepository
}

export interface Repositories extends ResourceRepositories {
  /** The event feed: its pages and its retention purge. */
  eventos: EventosRepository
  /** Webhook subscriptions and their signing secrets. */
  webhooks: WebhooksRepository
  /** What deliveries read and record: targets, attempts, failures. */
  webhookDeliveries: WebhookDeliveriesRepository
  /** Idempotency-Keys: their purge; `once` runs the work they guard. */
  purgeExpiredIdempotencyKeys: () => Promise<number>
  /**
   * Runs `work` once per Idempotency-Key, on the repositories of the key's transaction: its writes
   * and the remembered response commit together (see the idempotency repository's `run`).
   */
  once: (request: IdempotentRequest, work: (repositories: ResourceRepositories) => Promise<StoredResponse>) => Promise<IdempotentOutcome>
}

function resourceRepositories (db: Kysely<Schema>): ResourceRepositories {
  return { vagas: createVagasRepository(db), candidatos: createCandidatosRepository(db) }
}

export interface RepositorySettings {
  /** How long events, and the webhook attempts that delivered them, are kept (EVENT_RETENTION_HOURS). */
  eventRetentionHours: number
}

/** The recruitment repositories over the service's database: the one place they are built. */
export function createRepositories (db: Kysely<Schema>, settings: RepositorySettings): Repositories {
  const idempotency = createIdempotencyRepository(db)
  return {
    ...resourceRepositories(db),
    eventos: createEventosRepository(db, settings.eventRetentionHours),
    webhooks: createWebhooksRepository(db),
    webhookDeliveries: createWebhookDeliveriesRepository(db, settings.eventRetentionHours),
    purgeExpiredIdempotencyKeys: () => idempotency.purgeExpired(),
    once: (request, work) => idempotency.run(request, trx => work(resourceRepositories(trx)))
  }
}
