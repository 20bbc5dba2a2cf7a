import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { problem } from '../../../src/http/problems/error-catalogue.ts'
import { CollectionHeaders, collectionPage, collectionQuerystring, pageResponses } from '../../../src/http/resources/collection.ts'
import { problemResponse } from '../../../src/http/problems/problem-response.ts'
import { IdParams, actorOf, fieldProblem, hrefOf, notFound } from '../../../src/http/resources/common.ts'
import { webhookViewer } from '../../../src/http/resources/webhook-viewer.ts'
import {
  AttemptSchema, SecretSchema, WebhookCreateSchema, WebhookCreatedSchema, WebhookPatchSchema, WebhookSchema, webhookPath, webhookRepresentation
} from '../../../src/representations/webhook.ts'
import { webhookVersions } from '../../../src/representations/webhook-versions.ts'
import { WEBHOOK_SORT_FIELDS } from '../../../src/storage/webhooks-repository.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'
import { forbiddenTypes, readScopesOf } from '../../../src/webhooks/readable-types.ts'

const DEFAULT_SORT = 'criadoEm'

const AttemptsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'How many attempts, newest first' }))
})

/** /webhooks (docs/api.md, "Webhooks"): subscriptions to the event feed, delivered as Standard Webhooks. */
const webhooks: FastifyPluginAsyncTypebox = async (fastify) => {
  const { webhooks, webhookDeliveries } = fastify.repositories
  const { checkTarget, newSecret } = fastify.webhooks
  const tags = ['webhooks']
  const refused = { 422: problemResponse('WebhookTargetRefused') }
  const forbidden = { 403: problemResponse('WebhookTypesForbidden') }

  /**
   * The URL as deliveries reach it (URL parsing's form: the scheme and host in lower case); 400 when
   * it holds a user name or password (deliveries never send them, and every reader would see them);
   * 422, saying one thing whatever the cause, when its host is not public or does not resolve.
   */
  const allowedTarget = async <U extends string | undefined>(request: FastifyRequest, url: U): Promise<U> => {
    if (url === undefined) return url
    const parsed = URL.parse(url)
    if (parsed !== null && (parsed.username !== '' || parsed.password !== '')) {
      throw fieldProblem([{ field: '/url', message: 'must not hold a user name or password' }])
    }
    const refusal = await checkTarget(url)
    if (refusal !== undefined) {
      // The cause names addresses inside the service's network: for the operators' log alone.
      request.log.info({ refusal }, 'webhook target refused')
      throw problem('WebhookTargetRefused')
    }
    return new URL(url).href as U
  }

  /** 403 when the subscription would take event types its creator may not read (readable-types.ts). */
  const readableTypes = (tipos: string[] | undefined, readScopes: string[]): void => {
    if (tipos === undefined) return
    const refusedTypes = forbiddenTypes(tipos, readScopes)
    if (refusedTypes.length > 0) throw problem('WebhookTypesForbidden', { tipos: refusedTypes })
  }

  for (const { version, profile } of servedVersions(fastify.apiVersions, webhookVersions)) {
    if (!profile.served) continue
    const constraints = { apiVersion: version }

    fastify.post('', {
      constraints,
      schema: {
        summary: 'Subscribe to events',
        description: 'Answers 201 with the subscription and its signing secret, shown this once. Events committed from now on that match `tipos` and that the caller may read (`vagas:read`, `candidatos:read`, or `eventos:read` for all) are POSTed to `url`; 403 for a type it may not read.',
        tags,
        body: WebhookCreateSchema,
        response: { 201: WebhookCreatedSchema, ...forbidden, ...refused, 409: problemResponse('WebhookLimitReached') }
      }
    }, async (request, reply) => {
      const tipos = request.body.tipos ?? []
      const creator = { actor: actorOf(request), readScopes: readScopesOf(request.principal!.scopes) }
      readableTypes(tipos, creator.readScopes)
      const url = await allowedTarget(request, request.body.url)
      const segredo = newSecret()
      const webhook = await webhooks.create({ url, tipos, ativo: request.body.ativo ?? true }, creator, segredo, fastify.config.WEBHOOK_MAX_SUBSCRIPTIONS)
      if (webhook === 'full') throw problem('WebhookLimitReached')
      const body = webhookRepresentation(webhook, hrefOf(request))
      return await reply.code(201).header('location', hrefOf(request)(webhookPath(webhook.id))).send({ ...body, segredo })
    })

    fastify.get('', {
      constraints,
      schema: {
        summary: 'List webhook subscriptions',
        description: 'The caller\'s own (every one with `webhooks:admin`), oldest first, paged by `limit` and the `cursor` of the `next` link; secrets are never shown.',
        tags,
        querystring: collectionQuerystring('cursor', {}, WEBHOOK_SORT_FIELDS, DEFAULT_SORT),
        headers: CollectionHeaders,
        response: pageResponses('cursor', WebhookSchema)
      }
    }, async (request, reply) => {
      const viewer = webhookViewer(request)
      return await collectionPage({
        version,
        paging: 'cursor',
        path: '/webhooks',
        href: hrefOf(request),
        filter: {},
        linkFilter: {},
        query: request.query,
        sortFields: WEBHOOK_SORT_FIELDS,
        defaultSort: DEFAULT_SORT,
        list: listRequest => webhooks.list(listRequest, viewer),
        toBody: webhookRepresentation,
        validator: webhook => `${webhook.atualizadoEm}:${webhook.ativo}:${webhook.desativadoEm}`,
        reply
      })
    })

    fastify.get('/:id', {
      constraints,
      schema: { summary: 'Read a webhook subscription', description: 'Its target, types and state; never its secret.', tags, params: IdParams, response: { 200: WebhookSchema } }
    }, async (request) => {
      const webhook = await webhooks.findById(request.params.id, webhookViewer(request))
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
        response: { 200: WebhookSchema, ...forbidden, ...refused }
      }
    }, async (request) => {
      const url = await allowedTarget(request, request.body.url)
      const viewer = webhookViewer(request)
      const current = await webhooks.findById(request.params.id, viewer)
      if (current === undefined) throw notFound()
      // What its creator may read decides, whoever changes it; the creator's scopes never change.
      readableTypes(request.body.tipos, current.escopos)
      const webhook = await webhooks.update(request.params.id, { ...request.body, ...(url !== undefined && { url }) }, viewer)
      if (webhook === undefined) throw notFound()
      return webhookRepresentation(webhook, hrefOf(request))
    })

    fastify.delete('/:id', {
      constraints,
      schema: { summary: 'Remove a webhook subscription', description: 'Nothing more is delivered to it.', tags, params: IdParams, response: { 204: { description: 'Removed', type: 'null' } } }
    }, async (request, reply) => {
      if (!await webhooks.remove(request.params.id, webhookViewer(request))) throw notFound()
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
      if (!await webhooks.replaceSecret(request.params.id, segredo, webhookViewer(request))) throw notFound()
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
      if (await webhooks.findById(request.params.id, webhookViewer(request)) === undefined) throw notFound()
      return { items: await webhookDeliveries.listAttempts(request.params.id, request.query.limit ?? 50) }
    })
  }
}

export default webhooks
