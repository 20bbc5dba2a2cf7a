// The webhook subscription representation, and its delivery attempts.
import { Type } from '@sinclair/typebox'
import type { WebhookRecord } from '../storage/webhooks-repository.ts'
import { ATTEMPT_ERRORS } from '../domain/webhook-attempt.ts'
import { EventTypeSchema } from './evento.ts'
import { Id, Links, NullableString, StringEnum, Timestamp } from './fields.ts'

export const webhookPath = (id: string): string => `/webhooks/${id}`

const URL_FIELDS = { format: 'uri', maxLength: 2000, examples: ['https://example.com/hooks/recrutamento'] }
// A scheme is any case (RFC 3986); the subscription keeps the URL as URL parsing writes it, so the one shown is in lower case.
const TargetUrl = Type.String({ ...URL_FIELDS, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'Where deliveries are POSTed: an http:// or https:// URL (the scheme in any case) reaching a public address' })
const Url = Type.String({ ...URL_FIELDS, pattern: '^https?://', description: 'Where deliveries are POSTed: an http:// or https:// URL reaching a public address, as URL parsing writes it' })
const Tipos = Type.Array(EventTypeSchema, { uniqueItems: true, maxItems: 50, description: 'The event types delivered; empty: every type' })
const Ativo = Type.Boolean({ description: 'Whether events are delivered; turning it on again forgets past failures' })

export const WebhookCreateSchema = Type.Object({ url: TargetUrl, tipos: Type.Optional(Tipos), ativo: Type.Optional(Ativo) }, { additionalProperties: false })
export const WebhookPatchSchema = Type.Object({ url: Type.Optional(TargetUrl), tipos: Type.Optional(Tipos), ativo: Type.Optional(Ativo) }, { additionalProperties: false, minProperties: 1 })

export const WebhookSchema = Type.Object({
  id: Id,
  url: Url,
  tipos: Tipos,
  ativo: Ativo,
  criadoPor: NullableString({ description: 'Who made it: the token\'s actor, as `ator` in a candidato\'s `historico`; null for a subscription made before owners were recorded' }),
  desativadoEm: { ...NullableString({ description: 'When failures disabled it (docs/api.md, "Webhooks"); null otherwise' }), format: 'date-time' },
  criadoEm: Timestamp,
  atualizadoEm: Timestamp,
  links: Links
}, { description: 'A webhook subscription' })

const Segredo = Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+=*$', description: 'The signing secret (Standard Webhooks form); shown only in this answer' })

export const WebhookCreatedSchema = Type.Object({ ...WebhookSchema.properties, segredo: Segredo }, { description: 'The new subscription and its signing secret' })
export const SecretSchema = Type.Object({ segredo: Segredo }, { description: 'The new signing secret; deliveries from now on are signed with it alone' })

export const AttemptSchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  eventoId: Type.Integer({ minimum: 1, description: 'The event delivered, as in GET /eventos' }),
  mensagemId: Type.String({ description: 'The `webhook-id` header: the same for every attempt at one delivery' }),
  numero: Type.Integer({ minimum: 1, description: 'Which attempt at this delivery' }),
  em: Timestamp,
  duracaoMs: Type.Integer({ minimum: 0, description: 'How long the attempt took, in milliseconds' }),
  codigo: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver\'s status code; null when it did not answer' }),
  resultado: StringEnum(['sucesso', 'falha'] as const),
  erro: Type.Union([StringEnum(ATTEMPT_ERRORS), Type.Null()], { description: 'Why it failed: no answer in time, no connection, a target that is not public, a redirect, or another status than 2xx' })
}, { description: 'One delivery attempt' })

/** The subscription as WebhookSchema shows it. */
export function webhookRepresentation (webhook: WebhookRecord, href: (path: string) => string) {
  const self = href(webhookPath(webhook.id))
  return {
    id: webhook.id,
    url: webhook.url,
    tipos: webhook.tipos,
    ativo: webhook.ativo,
    criadoPor: webhook.criadoPor,
    desativadoEm: webhook.desativadoEm,
    criadoEm: webhook.criadoEm,
    atualizadoEm: webhook.atualizadoEm,
    links: [
      { rel: 'self', href: self, method: 'GET' as const },
      { rel: 'tentativas', href: `${self}/tentativas`, method: 'GET' as const },
      { rel: 'rotacionar-segredo', href: `${self}/rotacionar-segredo`, method: 'POST' as const }
    ]
  }
}
