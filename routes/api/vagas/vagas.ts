import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { vagaDefaults, vagaIssues } from '../../../src/domain/vaga.ts'
import { ifMatchPrecondition, isNotModified } from '../../../src/http/conventions/conditional.ts'
import { problem } from '../../../src/http/problems/error-catalogue.ts'
import { problemResponse } from '../../../src/http/problems/problem-response.ts'
import { CollectionHeaders, collectionPage, collectionQuerystring, pageResponses } from '../../../src/http/resources/collection.ts'
import {
  ChangedAfterFilter, ConditionalHeaders, IdempotencyHeaders, IdParams, IfMatchHeaders, actorOf, changedAfter, fieldProblem, notFound,
  preconditionFailed, ReadHeaders, setReadHeaders, setValidators, withHeaders, hrefOf
} from '../../../src/http/resources/common.ts'
import { createdResponse, sendCreated } from '../../../src/http/resources/created.ts'
import { VagaCreateSchema, VagaPatchSchema, VagaReplaceSchema, VagaStatusSchema, vagaEtag, vagaPath } from '../../../src/representations/vaga.ts'
import { Text } from '../../../src/representations/fields.ts'
import { vagaVersions } from '../../../src/representations/vaga-versions.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'
import { VAGA_SORT_FIELDS, type VagaRecord } from '../../../src/storage/vagas-repository.ts'

const DEFAULT_SORT = '-criadoEm'

/** /vagas and /vagas/{id}, in every API version: what differs between versions is in vagaVersions. */
const vagas: FastifyPluginAsyncTypebox = async (fastify) => {
  const { repositories } = fastify
  const { vagas } = repositories
  const read = { scopes: ['vagas:read'] }
  const write = { scopes: ['vagas:write'] }
  const tags = ['vagas']

  for (const { version, profile } of servedVersions(fastify.apiVersions, vagaVersions)) {
    const constraints = { apiVersion: version }
    const { paging, schema: VagaSchema, toBody } = profile
    const filters = {
      status: Type.Optional(VagaStatusSchema),
      q: Type.Optional(Text({ minLength: 1, maxLength: 100, description: 'Start of the title, any case' })),
      ...ChangedAfterFilter
    }

    fastify.get('', {
      constraints,
      config: read,
      schema: {
        summary: 'List vagas',
        description: paging === 'offset'
          ? 'Filter by `status`, `q` (start of the title) and `atualizadoApos`, sort by `sort`, page by `offset` and `limit`; `total` counts every match.'
          : 'Filter by `status`, `q` (start of the title) and `atualizadoApos`, sort by `sort`, page by `limit` and the `cursor` of the `next` link.',
        tags,
        querystring: collectionQuerystring(paging, filters, VAGA_SORT_FIELDS, DEFAULT_SORT),
        headers: CollectionHeaders,
        response: pageResponses(paging, VagaSchema)
      }
    }, async (request, reply) => {
      const { status, q, atualizadoApos, ...query } = request.query
      const changedAfterInstant = changedAfter(atualizadoApos)
      return await collectionPage({
        version,
        paging,
        path: '/vagas',
        href: hrefOf(request),
        filter: { status, q, changedAfter: changedAfterInstant },
        linkFilter: { status, q, atualizadoApos: changedAfterInstant },
        query,
        sortFields: VAGA_SORT_FIELDS,
        defaultSort: DEFAULT_SORT,
        list: listRequest => vagas.list(listRequest),
        toBody: profile.toBody,
        validator: (vaga: VagaRecord) => vagaEtag(vaga, version),
        reply
      })
    })

    fastify.post('', {
      constraints,
      config: write,
      schema: {
        summary: 'Create a vaga',
        description: 'Answers 201 with the vaga and its `Location`. With an `Idempotency-Key`, a retry with the same key and body answers the first result again (24 h); the same key with another body answers 422.',
        tags,
        headers: IdempotencyHeaders,
        body: VagaCreateSchema,
        response: {
          201: withHeaders(VagaSchema, 'The vaga was created', { location: { type: 'string', description: 'The URL of the new vaga' } }),
          422: problemResponse('IdempotencyKeyReused')
        }
      }
    }, async (request, reply) => {
      const fields = vagaDefaults(request.body)
      const issues = vagaIssues(fields)
      if (issues.length > 0) throw fieldProblem(issues)
      return await sendCreated(request, reply, {
        version,
        collection: '/vagas',
        repositories,
        create: async ({ vagas }) => {
          const vaga = await vagas.create(fields, actorOf(request))
          return createdResponse(hrefOf(request)(vagaPath(vaga.id)), vagaEtag(vaga, version), vaga.atualizadoEm, toBody(vaga, hrefOf(request)))
        }
      })
    })

    fastify.get('/:id', {
      constraints,
      config: read,
      schema: {
        summary: 'Read a vaga',
        description: 'Carries `ETag` and `Last-Modified`; `If-None-Match` or `If-Modified-Since` answer 304 when the copy is current.',
        tags,
        params: IdParams,
        headers: ConditionalHeaders,
        response: { 200: withHeaders(VagaSchema, 'The vaga', ReadHeaders), 304: { description: 'The copy the client holds is current', type: 'null' } }
      }
    }, async (request, reply) => {
      const vaga = await vagas.findById(request.params.id)
      if (vaga === undefined) throw notFound()
      const etag = vagaEtag(vaga, version)
      setReadHeaders(reply, etag, vaga.atualizadoEm)
      if (isNotModified(request.headers, etag, vaga.atualizadoEm)) return reply.code(304).send()
      return toBody(vaga, hrefOf(request))
    })

    const update = async (id: string, changes: Parameters<typeof vagas.update>[1], ifMatch: string | undefined, actor: string) => {
      const issues = vagaIssues(changes)
      if (issues.length > 0) throw fieldProblem(issues)
      const outcome = await vagas.update(id, changes, actor, ifMatchPrecondition(ifMatch, current => vagaEtag(current, version)))
      if (outcome.outcome === 'not-found') throw notFound()
      if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
      return outcome.value
    }
    const writeResponses = {
      200: withHeaders(VagaSchema, 'The vaga as changed'),
      412: problemResponse('PreconditionFailed')
    }

    fastify.put('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Replace a vaga', description: 'Sets every field; honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: VagaReplaceSchema, response: writeResponses }
    }, async (request, reply) => {
      const vaga = await update(request.params.id, { ...request.body, descricao: request.body.descricao ?? null }, request.headers['if-match'], actorOf(request))
      setValidators(reply, vagaEtag(vaga, version), vaga.atualizadoEm)
      return toBody(vaga, hrefOf(request))
    })

    fastify.patch('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Change some fields of a vaga', description: 'Sets the fields sent; honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: VagaPatchSchema, response: writeResponses }
    }, async (request, reply) => {
      const vaga = await update(request.params.id, request.body, request.headers['if-match'], actorOf(request))
      setValidators(reply, vagaEtag(vaga, version), vaga.atualizadoEm)
      return toBody(vaga, hrefOf(request))
    })

    fastify.delete('/:id', {
      constraints,
      config: write,
      schema: {
        summary: 'Remove a vaga',
        description: 'Refused with 409 while any candidato is in the vaga (move or remove them first). Candidatos transferred away from it can no longer cancel that transfer. Honours `If-Match`.',
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        response: {
          204: { description: 'The vaga is gone', type: 'null' },
          409: problemResponse('VagaHasCandidatos'),
          412: problemResponse('PreconditionFailed')
        }
      }
    }, async (request, reply) => {
      const ifMatch = request.headers['if-match']
      const outcome = await vagas.remove(request.params.id, actorOf(request), ifMatchPrecondition(ifMatch, current => vagaEtag(current, version)))
      if (outcome.outcome === 'not-found') throw notFound()
      if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
      if (outcome.outcome === 'has-candidatos') {
        throw problem('VagaHasCandidatos')
      }
      request.log.info({ vagaId: request.params.id, actor: actorOf(request) }, 'vaga removed')
      return reply.code(204).send()
    })
  }
}

export default vagas
