import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { candidatoEtag } from '../../../src/representations/candidato.ts'
import { candidatoVersions } from '../../../src/representations/candidato-versions.ts'
import { CollectionHeaders, collectionPage, collectionQuerystring, pageResponses } from '../../../src/http/resources/collection.ts'
import { CandidatoFilters, DEFAULT_CANDIDATO_SORT } from '../../../src/http/resources/candidato-list.ts'
import { changedAfter, IdParams, notFound, hrefOf } from '../../../src/http/resources/common.ts'
import { CANDIDATO_SORT_FIELDS, type CandidatoRecord } from '../../../src/storage/candidatos-repository.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'

/** GET /vagas/{id}/candidatos: the candidatos in one vaga (a nested relation, docs/api.md "Vagas and candidatos"), in every API version. */
const vagaCandidatos: FastifyPluginAsyncTypebox = async (fastify) => {
  const { vagas, candidatos } = fastify.repositories

  for (const { version, profile } of servedVersions(fastify.apiVersions, candidatoVersions)) {
    const { paging, schema: CandidatoSchema, showsVaga } = profile
    fastify.get('/:id/candidatos', {
      constraints: { apiVersion: version },
      config: { scopes: ['candidatos:read'] },
      schema: {
        summary: 'List the candidatos in a vaga',
        description: 'The candidatos whose current vaga this is, with the filters, sorts and paging of `/candidatos`. 404 when the vaga does not exist.',
        tags: ['vagas', 'candidatos'],
        params: IdParams,
        querystring: collectionQuerystring(paging, CandidatoFilters, CANDIDATO_SORT_FIELDS, DEFAULT_CANDIDATO_SORT),
        headers: CollectionHeaders,
        response: pageResponses(paging, CandidatoSchema)
      }
    }, async (request, reply) => {
      const vagaId = request.params.id
      const { status, q, atualizadoApos, ...query } = request.query
      const changedAfterInstant = changedAfter(atualizadoApos)
      return await collectionPage({
        version,
        paging,
        path: `/vagas/${vagaId}/candidatos`,
        href: hrefOf(request),
        filter: { status, vagaId, q, changedAfter: changedAfterInstant },
        linkFilter: { status, q, atualizadoApos: changedAfterInstant },
        query,
        sortFields: CANDIDATO_SORT_FIELDS,
        defaultSort: DEFAULT_CANDIDATO_SORT,
        // A page with candidatos shows the vaga exists: only an empty one needs to ask.
        list: async listRequest => {
          const page = await candidatos.list(listRequest)
          if (page.items.length === 0 && !await vagas.exists(vagaId)) throw notFound()
          return page
        },
        toBody: profile.toBody,
        validator: (candidato: CandidatoRecord) => candidatoEtag(candidato, version, showsVaga),
        reply
      })
    })
  }
}

export default vagaCandidatos
