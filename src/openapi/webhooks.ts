// The `webhooks` of a version's OpenAPI 3.1 document: the request a subscription receives.
import { Type } from '@sinclair/typebox'
import type { ApiVersion, ApiVersionTable } from '../versioning/versions.ts'
import { servedVersions } from '../versioning/profiles.ts'
import { candidatoVersions } from '../representations/candidato-versions.ts'
import { Timestamp } from '../representations/fields.ts'
import { EventTypeSchema, eventoSchema } from '../representations/evento.ts'
import { vagaVersions } from '../representations/vaga-versions.ts'
import { webhookVersions } from '../representations/webhook-versions.ts'

function profileIn<P extends object> (table: ApiVersionTable, version: ApiVersion, resource: Parameters<typeof servedVersions<P>>[1]): P {
  return servedVersions(table, resource).find(entry => entry.version === version.version)!.profile
}

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })

/** `{ webhooks }` for a version that serves subscriptions; nothing for one that does not. */
export function webhookDescriptions (table: ApiVersionTable, version: ApiVersion | undefined): { webhooks?: Record<string, unknown> } {
  if (version === undefined || !profileIn(table, version, webhookVersions).served) return {}
  const Payload = Type.Object({
    type: EventTypeSchema,
    timestamp: { ...Timestamp, description: 'When the change was made' },
    data: eventoSchema(profileIn(table, version, vagaVersions).schema, profileIn(table, version, candidatoVersions).schema)
  }, { description: 'One event, as Standard Webhooks delivers it' })
  return {
    webhooks: {
      evento: {
        post: {
          summary: 'An event, delivered to a subscription',
          description: 'POSTed to each enabled subscription whose `tipos` include the event\'s, signed per Standard Webhooks (docs/api.md, "Webhooks"). ' +
            'Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else, a redirect included, is retried later.',
          operationId: 'webhookEvento',
          tags: ['webhooks'],
          // No token: the receiver checks the signature instead.
          security: [],
          parameters: [
            header('webhook-id', 'The message id: the same for every attempt at one delivery'),
            header('webhook-timestamp', 'When this attempt was sent, in seconds since the epoch'),
            header('webhook-signature', '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the secret')
          ],
          requestBody: { required: true, content: { 'application/json': { schema: JSON.parse(JSON.stringify(Payload)) } } },
          responses: {
            '2XX': { description: 'Received; the delivery succeeded' },
            default: { description: 'Anything else fails the attempt: it is retried on the documented schedule' }
          }
        }
      }
    }
  }
}
