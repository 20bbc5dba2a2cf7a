import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { candidatoIssues } from '../../../src/domain/candidato.js'
import { ifMatchPrecondition, isNotModified } from '../../../src/http/conditional.js'
import { createRepresentationCache } from '../../../src/http/representation-cache.js'
import { strictBodyValidation } from '../../../src/http/strict-body.js'
import {
  CandidatoCreateSchema, CandidatoPatchSchema, CandidatoReplaceSchema, CandidatoStatusSchema, CandidatoV1Schema, CandidatoV2Schema,
  DEFAULT_CANDIDATO_SORT, candidatoEtag, candidatoLastModified, candidatoPath, candidatoRepresentation, duplicateEmail
} from '../../../src/http/resources/candidato.js'
import { CollectionHeaders, collectionPage, pageResponses, pagingQueryV1, pagingQueryV2 } from '../../../src/http/resources/collection.js'
import {
  ConditionalHeaders, Id, IdempotencyHeaders, IdParams, IfMatchHeaders, Text, fieldProblem, notFound,
  preconditionFailed, problemResponse, ReadHeaders, setReadHeaders, setValidators, withHeaders, hrefOf
} from '../../../src/http/resources/common.js'
import { createdResponse, sendCreated } from '../../../src/http/resources/created.js'
import { CANDIDATO_SORT_FIELDS, createCandidatosRepository, DuplicateEmailError, type CandidatoDetail, type CandidatoRecord } from '../../../src/storage/candidatos-repository.js'
import actions from './actions.js'

/** What a PUT or PATCH of a candidato reads from its request, whichever body schema checked it. */
type UpdateRequest = FastifyRequest & { params: { id: string }, headers: { 'if-match'?: string }, body: { nome?: string, email?: string } }

/** /candidatos and /candidatos/{id}. v1 names the candidato's vaga by id; v2 embeds its summary and pages by cursor. */
const candidatos: FastifyPluginAsyncTypebox = async (fastify) => {
  strictBodyValidation(fastify)
  // Autoload reads only index.ts in a folder that has one: the sibling routes are registered here.
  await fastify.register(actions)
  const { candidatos, idempotency } = fastify.repositories
  const read = { scopes: ['candidatos:read'] }
  const write = { scopes: ['candidatos:write'] }
  const tags = ['candidatos']

  for (const version of ['1.0', '2.0']) {
    const v1 = version === '1.0'
    const constraints = { apiVersion: version }
    const CandidatoSchema = v1 ? CandidatoV1Schema : CandidatoV2Schema
    const represent = (candidato: CandidatoRecord | CandidatoDetail, href: (path: string) => string) => candidatoRepresentation(candidato, version, href)
    const etagOf = (candidato: CandidatoRecord) => candidatoEtag(candidato, version)
    const validators = (reply: FastifyReply, candidato: CandidatoRecord) => setValidators(reply, etagOf(candidato), candidatoLastModified(candidato, version))
    const sendRepresentation = createRepresentationCache()

    fastify.get('', {
      constraints,
      config: read,
      schema: {
        summary: 'List candidatos',
        description: 'Filter by `status`, `vagaId` and `q` (start of the name or e-mail), sort by `sort`, ' +
          (v1 ? 'page by `offset` and `limit`; `total` counts every match.' : 'page by `limit` and the `cursor` of the `next` link.'),
        tags,
        querystring: Type.Object({
          status: Type.Optional(CandidatoStatusSchema),
          vagaId: Type.Optional(Id),
          q: Type.Optional(Text({ minLength: 1, maxLength: 100, description: 'Start of the name or of the e-mail address, any case' })),
          ...(v1 ? pagingQueryV1(CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT) : pagingQueryV2(CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT))
        }),
        headers: CollectionHeaders,
        response: pageResponses(v1, CandidatoSchema)
      }
    }, async (request, reply) => {
      const { status, vagaId, q, ...query } = request.query as { status?: CandidatoRecord['status'], vagaId?: string, q?: string, limit: number, offset?: number, cursor?: string, sort?: string }
      return await collectionPage({
        version,
        path: '/candidatos',
        href: hrefOf(request),
        filter: { status, vagaId, q },
        linkFilter: { status, vagaId, q },
        query,
        sortFields: CANDIDATO_SORT_FIELDS,
        defaultSort: DEFAULT_CANDIDATO_SORT,
        list: listRequest => candidatos.list(listRequest),
        represent: (candidato: CandidatoRecord) => represent(candidato, hrefOf(request)),
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
          201: withHeaders(CandidatoSchema, 'The candidato was registered', { location: { type: 'string', description: 'The URL of the new candidato' } }),
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
          idempotency,
          create: async db => {
            const candidato = await (db === undefined ? candidatos : createCandidatosRepository(db)).create(request.body)
            return createdResponse(hrefOf(request)(candidatoPath(candidato.id)), etagOf(candidato), candidato.atualizadoEm, represent(candidato, hrefOf(request)))
          }
        })
      } catch (error) {
        if (error instanceof DuplicateEmailError) throw duplicateEmail()
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
        response: { 200: withHeaders(CandidatoSchema, 'The candidato', ReadHeaders), 304: { description: 'The copy the client holds is current', type: 'null' } }
      }
    }, async (request, reply) => {
      const candidato = await candidatos.findById(request.params.id)
      if (candidato === undefined) throw notFound()
      const etag = etagOf(candidato)
      const lastModified = candidatoLastModified(candidato, version)
      setReadHeaders(reply, etag, lastModified)
      if (isNotModified(request.headers, etag, lastModified)) return reply.code(304).send()
      return sendRepresentation(reply, candidato.id, etag, () => represent(candidato, hrefOf(request)))
    })

    const update = async (id: string, changes: { nome?: string, email?: string }, ifMatch: string | undefined) => {
      const issues = candidatoIssues(changes)
      if (issues.length > 0) throw fieldProblem(issues)
      try {
        const outcome = await candidatos.update(id, changes, ifMatchPrecondition(ifMatch, etagOf))
        if (outcome.outcome === 'not-found') throw notFound()
        if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
        return outcome.value
      } catch (error) {
        if (error instanceof DuplicateEmailError) throw duplicateEmail()
        throw error
      }
    }
    // PUT and PATCH differ only in the body they accept: both store the fields sent and answer alike.
    const updateAndAnswer = async (request: UpdateRequest, reply: FastifyReply) => {
      const candidato = await update(request.params.id, request.body, request.headers['if-match'])
      validators(reply, candidato)
      return represent(candidato, hrefOf(request))
    }
    const writeResponses = {
      200: withHeaders(CandidatoSchema, 'The candidato as changed'),
      409: problemResponse('DuplicateEmail'),
      412: problemResponse('PreconditionFailed')
    }

    fastify.put('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Replace a candidato', description: 'Sets name and e-mail; status and vaga change only through the actions. Honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: CandidatoReplaceSchema, response: writeResponses }
    }, updateAndAnswer)

    fastify.patch('/:id', {
      constraints,
      config: write,
      schema: { summary: 'Change the name or e-mail of a candidato', description: 'Sets the fields sent. Honours `If-Match`.', tags, params: IdParams, headers: IfMatchHeaders, body: CandidatoPatchSchema, response: writeResponses }
    }, updateAndAnswer)

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
      const outcome = await candidatos.remove(request.params.id, ifMatchPrecondition(ifMatch, etagOf))
      if (outcome.outcome === 'not-found') throw notFound()
      if (outcome.outcome === 'precondition-failed') throw preconditionFailed()
      return reply.code(204).send()
    })
  }
}

export default candidatos
