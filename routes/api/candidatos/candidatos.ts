import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { candidatoIssues } from '../../../src/domain/candidato.ts'
import { ifMatchPrecondition, isNotModified } from '../../../src/http/conventions/conditional.ts'
import { problem } from '../../../src/http/problems/error-catalogue.ts'
import { problemResponse } from '../../../src/http/problems/problem-response.ts'
import {
  CandidatoCreateSchema, CandidatoPatchSchema, CandidatoReplaceSchema,
  candidatoDetailSchema, candidatoEtag, candidatoLastModified, candidatoPath
} from '../../../src/representations/candidato.ts'
import { candidatoVersions } from '../../../src/representations/candidato-versions.ts'
import { Id } from '../../../src/representations/fields.ts'
import { CandidatoFilters, DEFAULT_CANDIDATO_SORT } from '../../../src/http/resources/candidato-list.ts'
import { CollectionHeaders, collectionPage, collectionQuerystring, pageResponses } from '../../../src/http/resources/collection.ts'
import {
  ConditionalHeaders, actorOf, IdempotencyHeaders, IdParams, IfMatchHeaders, changedAfter, fieldProblem, notFound,
  preconditionFailed, ReadHeaders, setReadHeaders, setValidators, withHeaders, hrefOf
} from '../../../src/http/resources/common.ts'
import { createdResponse, sendCreated } from '../../../src/http/resources/created.ts'
import { CANDIDATO_SORT_FIELDS, DuplicateEmailError, type CandidatoRecord } from '../../../src/storage/candidatos-repository.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'

/** /candidatos and /candidatos/{id}, in every API version: what differs between versions is in candidatoVersions. */
const candidatos: FastifyPluginAsyncTypebox = async (fastify) => {
  const { repositories } = fastify
  const { candidatos } = repositories
  const read = { scopes: ['candidatos:read'] }
  const write = { scopes: ['candidatos:write'] }
  const tags = ['candidatos']

  for (const { version, profile } of servedVersions(fastify.apiVersions, candidatoVersions)) {
    const constraints = { apiVersion: version }
    const { paging, schema: CandidatoSchema, toBody, showsVaga } = profile
    const CandidatoDetailSchema = candidatoDetailSchema(CandidatoSchema)
    const etagOf = (candidato: CandidatoRecord) => candidatoEtag(candidato, version, showsVaga)
    const validators = (reply: FastifyReply, candidato: CandidatoRecord) => setValidators(reply, etagOf(candidato), candidatoLastModified(candidato, showsVaga))

    fastify.get('', {
      constraints,
      config: read,
      schema: {
        summary: 'List candidatos',
        description: 'Filter by `status`, `vagaId`, `q` (start of the name or e-mail) and `atualizadoApos`, sort by `sort`, ' +
          (paging === 'offset' ? 'page by `offset` and `limit`; `total` counts every match.' : 'page by `limit` and the `cursor` of the `next` link.'),
        tags,
        querystring: collectionQuerystring(paging, { ...CandidatoFilters, vagaId: Type.Optional(Id) }, CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT),
        headers: CollectionHeaders,
        response: pageResponses(paging, CandidatoSchema)
      }
    }, async (request, reply) => {
      const { status, vagaId, q, atualizadoApos, ...query } = request.query
      const changedAfterInstant = changedAfter(atualizadoApos)
      return await collectionPage({
        version,
        paging,
        path: '/candidatos',
        href: hrefOf(request),
        filter: { status, vagaId, q, changedAfter: changedAfterInstant },
        linkFilter: { status, vagaId, q, atualizadoApos: changedAfterInstant },
        query,
        sortFields: CANDIDATO_SORT_FIELDS,
        defaultSort: DEFAULT_CANDIDATO_SORT,
        list: listRequest => candidatos.list(listRequest),
        toBody: profile.toBody,
        validator: etagOf,
        reply
      })
    })

    fastify.post('', {
      constraints,
      config: write,
      schema: {
        summary: 'Register a candidato',
        description: 'The new candidato is `cadastrado`, in no vaga. Answers 201 with `Location`; 409 when the e-mail address is taken. ' +
          'With an `Idempotency-Key`, a retry with the same key and body answers the first result again (24 h); the same key with another body answers 422.',
        tags,
        headers: IdempotencyHeaders,
        body: CandidatoCreateSchema,
        response: {
          201: withHeaders(CandidatoDetailSchema, 'The candidato was registered', { location: { type: 'string', description: 'The URL of the new candidato' } }),
          409: problemResponse('DuplicateEmail'),
          422: problemResponse('IdempotencyKeyReused')
        }
      }
    }, async (request, reply) => {
      const issues = candidatoIssues(request.body)
      if (issues.length > 0) throw fieldProblem(issues)
      try {
        return await sendCreated(request, reply, {
          version,
          collection: '/candidatos',
          repositories,
          create: async ({ candidatos }) => {
            const candidato = await candidatos.create(request.body, actorOf(request))
            return createdResponse(hrefOf(request)(candidatoPath(candidato.id)), etagOf(candidato), candidato.atualizadoEm, toBody(candidato, hrefOf(request)))
          }
        })
      } catch (error) {
        if (error instanceof DuplicateEmailError) throw problem('DuplicateEmail')
        throw error
      }
    })

    fastify.get('/:id', {
      constraints,
      config: read,
      schema: {
        summary: 'Read a candidato',
        description: 'With its action history. Carries `ETag` and `Last-Modified`; `If-None-Match` or `If-Modified-Since` answer 304 when the copy is current.',
        tags,
        params: IdParams,
        headers: ConditionalHeaders,
        response: { 200: withHeaders(CandidatoDetailSchema, 'The candidato', ReadHeaders), 304: { description: 'The copy the client holds is current', type: 'null' } }
      }
    }, async (request, reply) => {
      const candidato = await candidatos.findById(request.params.id)
      if (candidato === undefined) throw notFound()
      const etag = etagOf(candidato)
      const lastModified = candidatoLastModified(candidato, showsVaga)
      setReadHeaders(reply, etag, lastModified)
      if (isNotModified(request.headers, etag, lastModified)) return reply.code(304).send()
      return toBody(candidato, hrefOf(request))
    })

    const update = async (id: string, changes: { nome?: string, email?: string }, ifMatch: string | undefined, actor: string) => {
      const issues = candidatoIssues(changes)
      if (issues.length > 0) throw fieldProblem(issues)
      try {
        const outcome = await candidatos.update(id, changes, actor, ifMatchPrecondition(ifMatch, etagOf))
        if (outcome.outcome === 'not-found') throw notFound()
        if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
        return outcome.value
      } catch (error) {
        if (error instanceof DuplicateEmailError) throw problem('DuplicateEmail')
        throw error
      }
    }
    // PUT and PATCH differ only in the body they accept: both store the fields sent and answer alike.
    const answerUpdated = (reply: FastifyReply, candidato: CandidatoRecord, href: (path: string) => string) => {
      validators(reply, candidato)
      return toBody(candidato, href)
    }
    const writeResponses = {
      200: withHeaders(CandidatoDetailSchema, 'The candidato as changed'),
      409: problemResponse('DuplicateEmail'),
      412: problemResponse('PreconditionFailed')
    }

    fastify.put('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Replace a candidato', description: 'Sets name and e-mail; status and vaga change only through the actions. Honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: CandidatoReplaceSchema, response: writeResponses }
    }, async (request, reply) => answerUpdated(reply, await update(request.params.id, request.body, request.headers['if-match'], actorOf(request)), hrefOf(request)))

    fastify.patch('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Change the name or e-mail of a candidato', description: 'Sets the fields sent. Honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: CandidatoPatchSchema, response: writeResponses }
    }, async (request, reply) => answerUpdated(reply, await update(request.params.id, request.body, request.headers['if-match'], actorOf(request)), hrefOf(request)))

    fastify.delete('/:id', {
      constraints,
      config: write,
      schema: {
        summary: 'Remove a candidato',
        description: 'Removes the candidato and its history, in any state. Honours `If-Match`.',
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        response: {
          204: { description: 'The candidato is gone', type: 'null' },
          412: problemResponse('PreconditionFailed')
        }
      }
    }, async (request, reply) => {
      const ifMatch = request.headers['if-match']
      const outcome = await candidatos.remove(request.params.id, actorOf(request), ifMatchPrecondition(ifMatch, etagOf))
      if (outcome.outcome === 'not-found') throw notFound()
      if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
      return reply.code(204).send()
    })
  }
}

export default candidatos
