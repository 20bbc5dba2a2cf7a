import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { DEFAULT_LIMIT, queryString } from '../../src/http/resources/collection-query.ts'
import { problem } from '../../src/http/problems/error-catalogue.ts'
import { Cursor, Limit, pageSchemaV2 } from '../../src/http/resources/collection.ts'
import { hrefOf } from '../../src/http/resources/common.ts'
import { decodeFeedCursor, encodeFeedCursor, feedScope } from '../../src/http/resources/feed-cursor.ts'
import { problemResponse } from '../../src/http/problems/problem-response.ts'
import { Id } from '../../src/representations/fields.ts'
import { candidatoVersions } from '../../src/representations/candidato-versions.ts'
import { EventTypeSchema, eventoRepresentation, eventoSchema } from '../../src/representations/evento.ts'
import { eventoVersions } from '../../src/representations/evento-versions.ts'
import { vagaVersions } from '../../src/representations/vaga-versions.ts'
import { PurgedPositionError } from '../../src/storage/eventos-repository.ts'
import { servedVersions } from '../../src/versioning/profiles.ts'

const FeedQuery = Type.Object({
  tipo: Type.Optional(EventTypeSchema),
  sujeitoId: Type.Optional({ ...Id, description: 'Only the events of this vaga or candidato' }),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor)
})

/** GET /eventos (docs/api.md, "Events"): every state change, in the order they committed, from a cursor on. */
const eventos: FastifyPluginAsyncTypebox = async (fastify) => {
  const { eventos } = fastify.repositories
  const vagas = servedVersions(fastify.apiVersions, vagaVersions)
  const candidatos = servedVersions(fastify.apiVersions, candidatoVersions)

  servedVersions(fastify.apiVersions, eventoVersions).forEach(({ version, profile }, i) => {
    if (!profile.served) return
    const vaga = vagas[i]!.profile
    const candidato = candidatos[i]!.profile
    const subjects = { vaga: vaga.toBody, candidato: candidato.toBody }
    fastify.get('/eventos', {
      constraints: { apiVersion: version },
      config: { scopes: ['eventos:read'], database: true },
      schema: {
        summary: 'Read the event feed',
        description: 'One event per state change, in the order they committed. Filter by `tipo` and `sujeitoId`. The `next` link is always there: ' +
          'follow it now while pages come back full, later to poll. A cursor from before the oldest event kept answers 410.',
        tags: ['eventos'],
        querystring: FeedQuery,
        response: {
          200: pageSchemaV2(eventoSchema(vaga.schema, candidato.schema)),
          400: problemResponse('InvalidCursor'),
          410: problemResponse('CursorExpired')
        }
      }
    }, async (request) => {
      const { tipo, sujeitoId, cursor } = request.query
      const limit = request.query.limit ?? DEFAULT_LIMIT
      const scope = feedScope({ tipo, sujeitoId })
      const after = cursor === undefined ? undefined : decodeFeedCursor(cursor, scope)
      let page
      try {
        page = await eventos.page({ filter: { type: tipo, subjectId: sujeitoId }, after, limit })
      } catch (error) {
        if (error instanceof PurgedPositionError) throw problem('CursorExpired')
        throw error
      }
      const href = hrefOf(request)
      const link = (at: string | undefined) => href('/eventos' + queryString({ tipo, sujeitoId, limit, cursor: at }))
      return {
        items: page.items.map(event => eventoRepresentation(event, href, subjects)),
        limit,
        links: [
          { rel: 'self', href: link(cursor), method: 'GET' as const },
          { rel: 'next', href: link(encodeFeedCursor(page.next, scope)), method: 'GET' as const }
        ]
      }
    })
  })
}

export default eventos
