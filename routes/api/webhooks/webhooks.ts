import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { problem } from '../../../src/http/error-catalogue.js'
import { IdParams, hrefOf, notFound, problemResponse } from '../../../src/http/resources/common.js'
import { AttemptSchema, SecretSchema, WebhookCreateSchema, WebhookCreatedSchema, WebhookPatchSchema, WebhookSchema, webhookPath, webhookRepresentation } from '../../../src/http/resources/webhook.js'
import { webhookVersions } from '../../../src/http/resources/webhook-versions.js'
import { servedVersions } from '../../../src/versioning/profiles.js'

const AttemptsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'How many attempts, newest first' }))
})

/** /webhooks (docs/api.md, "Webhooks"): subscriptions to the event feed, delivered as Standard Webhooks. */
const webhooks: FastifyPluginAsyncTypebox = async (fastify) => {
  const { webhooks, webhookDeliveries } = fastify.repositories
  const { checkTarget, newSecret } = fastify.webhooks
  const tags = ['webhooks']
  const refused = { 422: problemResponse('WebhookTargetRefused') }

  /** The URL as deliveries reach it (URL parsing's form: the scheme and host in lower case), or 422. */
  const allowedTarget = async <U extends string | undefined>(url: U): Promise<U> => {
    if (url === undefined) return url
    const refusal = await checkTarget(url)
    if (refusal !== undefined) throw problem('WebhookTargetRefused', { detail: refusal })
    return new URL(url).href as U
  }

  for (const { version, profile } of servedVersions(fastify.apiVersions, webhookVersions)) {
    if (!profile.served) continue
    const constraints = { apiVersion: version }

    fastify.post('', {
      constraints,
      schema: {
        summary: 'Subscribe to events',
        description: 'Answers 201 with the subscription and its signing secret, shown this once. Events committed from now on that match `tipos` are POSTed to `url`.',
        tags,
        body: WebhookCreateSchema,
        response: { 201: WebhookCreatedSchema, ...refused, 409: problemResponse('WebhookLimitReached') }
      }
    }, async (request, reply) => {
      const url = await allowedTarget(request.body.url)
      const segredo = newSecret()
      const webhook = await webhooks.create({ url, tipos: request.body.tipos ?? [], ativo: request.body.ativo ?? true }, segredo, fastify.config.WEBHOOK_MAX_SUBSCRIPTIONS)
      if (webhook === 'full') throw problem('WebhookLimitReached')
      const body = webhookRepresentation(webhook, hrefOf(request))
      return await reply.code(201).header('location', hrefOf(request)(webhookPath(webhook.id))).send({ ...body, segredo })
    })

    fastify.get('', {
      constraints,
      schema: { summary: 'List webhook subscriptions', description: 'Oldest first; secrets are never shown.', tags, response: { 200: Type.Object({ items: Type.Array(WebhookSchema) }) } }
    }, async (request) => {
      const href = hrefOf(request)
      return { items: (await webhooks.list()).map(webhook => webhookRepresentation(webhook, href)) }
    })

    fastify.get('/:id', {
      constraints,
      schema: { summary: 'Read a webhook subscription', description: 'Its target, types and state; never its secret.', tags, params: IdParams, response: { 200: WebhookSchema } }
    }, async (request) => {
      const webhook = await webhooks.findById(request.params.id)
      if (webhook === undefined) throw notFound()
      return webhookRepresentation(webhook, hrefOf(request))
    })

    fastify.patch('/:id', {
      constraints,
      schema: {
        summary: 'Change a webhook subscription',
        description: 'Sets the fields sent. `ativo: true` turns on a subscription its failures disabled.',
        tags,
        params: IdParams,
        body: WebhookPatchSchema,
        response: { 200: WebhookSchema, ...refused }
      }
    }, async (request) => {
      const url = await allowedTarget(request.body.url)
      const webhook = await webhooks.update(request.params.id, { ...request.body, ...(url !== undefined && { url }) })
      if (webhook === undefined) throw notFound()
      return webhookRepresentation(webhook, hrefOf(request))
    })

    fastify.delete('/:id', {
      constraints,
      schema: { summary: 'Remove a webhook subscription', description: 'Nothing more is delivered to it.', tags, params: IdParams, response: { 204: { description: 'Removed', type: 'null' } } }
    }, async (request, reply) => {
      if (!await webhooks.remove(request.params.id)) throw notFound()
      return await reply.code(204).send()
    })

    fastify.post('/:id/rotacionar-segredo', {
      constraints,
      schema: {
        summary: 'Replace the signing secret',
        description: 'Answers the new secret, shown this once. Deliveries from now on, retries included, are signed with it alone.',
        tags,
        params: IdParams,
        response: { 200: SecretSchema }
      }
    }, async (request) => {
      const segredo = newSecret()
      if (!await webhooks.replaceSecret(request.params.id, segredo)) throw notFound()
      return { segredo }
    })

    fastify.get('/:id/tentativas', {
      constraints,
      schema: {
        summary: 'List delivery attempts',
        description: 'The newest attempts first: when, how long, the receiver\'s status code, and the outcome.',
        tags,
        params: IdParams,
        querystring: AttemptsQuery,
        response: { 200: Type.Object({ items: Type.Array(AttemptSchema) }) }
      }
    }, async (request) => {
      if (await webhooks.findById(request.params.id) === undefined) throw notFound()
      return { items: await webhookDeliveries.listAttempts(request.params.id, request.query.limit ?? 50) }
    })
  }
}

export default webhooks
