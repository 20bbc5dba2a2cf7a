import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { CandidatoStatusSchema, CandidatoV1Schema, CandidatoV2Schema, DEFAULT_CANDIDATO_SORT, candidatoEtag, candidatoRepresentation } from '../../../src/http/resources/candidato.js'
import { CollectionHeaders, collectionPage, pageResponses, pagingQueryV1, pagingQueryV2 } from '../../../src/http/resources/collection.js'
import { IdParams, Text, notFound, hrefOf } from '../../../src/http/resources/common.js'
import { CANDIDATO_SORT_FIELDS, type CandidatoRecord } from '../../../src/storage/candidatos-repository.js'

/** GET /vagas/{id}/candidatos: the candidatos in one vaga (a nested relation, spec rule 4). */
const vagaCandidatos: FastifyPluginAsyncTypebox = async (fastify) => {
  const { vagas, candidatos } = fastify.repositories

  for (const version of ['1.0', '2.0']) {
    const v1 = version === '1.0'
    const CandidatoSchema = v1 ? CandidatoV1Schema : CandidatoV2Schema
    fastify.get('/:id/candidatos', {
      constraints: { apiVersion: version },
      config: { scopes: ['candidatos:read'] },
      schema: {
        summary: 'List the candidatos in a vaga',
        description: 'The candidatos whose current vaga this is, with the filters, sorts and paging of `/candidatos`. 404 when the vaga does not exist.',
        tags: ['vagas', 'candidatos'],
        params: IdParams,
        querystring: Type.Object({
          status: Type.Optional(CandidatoStatusSchema),
          q: Type.Optional(Text({ minLength: 1, maxLength: 100, description: 'Start of the name or of the e-mail address, any case' })),
          ...(v1 ? pagingQueryV1(CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT) : pagingQueryV2(CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT))
        }),
        headers: CollectionHeaders,
        response: pageResponses(v1, CandidatoSchema)
      }
    }, async (request, reply) => {
      const vagaId = request.params.id
      const { status, q, ...query } = request.query as { status?: CandidatoRecord['status'], q?: string, limit: number, offset?: number, cursor?: string, sort?: string }
      return await collectionPage({
        version,
        path: `/vagas/${vagaId}/candidatos`,
        href: hrefOf(request),
        filter: { status, vagaId, q },
        linkFilter: { status, q },
        query,
        sortFields: CANDIDATO_SORT_FIELDS,
        defaultSort: DEFAULT_CANDIDATO_SORT,
        // A page with candidatos shows the vaga exists: only an empty one needs to ask.
        list: async listRequest => {
          const page = await candidatos.list(listRequest)
          if (page.items.length === 0 && !await vagas.exists(vagaId)) throw notFound()
          return page
        },
        represent: (candidato: CandidatoRecord) => candidatoRepresentation(candidato, version, hrefOf(request)),
        validator: (candidato: CandidatoRecord) => candidatoEtag(candidato, version),
        reply
      })
    })
  }
}

export default vagaCandidatos
