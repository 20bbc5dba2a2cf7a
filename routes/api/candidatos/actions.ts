import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MOVES, needsTargetVaga, type Move, type Refusal } from '../../../src/domain/candidato-actions.js'
import { ifMatchPrecondition } from '../../../src/http/conditional.js'
import { type Problem } from '../../../src/http/problem.js'
import { problem } from '../../../src/http/error-catalogue.js'
import { CandidatoV1Schema, CandidatoV2Schema, TargetVagaSchema, candidatoEtag, candidatoLastModified, candidatoRepresentation } from '../../../src/http/resources/candidato.js'
import { IdParams, IfMatchHeaders, actorOf, notFound, preconditionFailed, problemResponse, setValidators, withHeaders, hrefOf } from '../../../src/http/resources/common.js'

const PURPOSE: Record<string, string> = {
  'POST candidatar': 'Apply to a vaga: `cadastrado` -> `inscrito` in the open vaga named by `vagaId`.',
  'POST aprovar': 'Approve: `inscrito` -> `aprovado`.',
  'DELETE aprovar': 'Cancel the approval: `aprovado` -> `inscrito`.',
  'POST reprovar': 'Reject: `inscrito` -> `reprovado`.',
  'DELETE reprovar': 'Cancel the rejection: `reprovado` -> `inscrito`.',
  'POST transferir': 'Transfer: `inscrito` in one vaga -> `inscrito` in the open vaga named by `vagaId`.',
  'DELETE transferir': 'Cancel the latest transfer: back to the previous vaga, while still `inscrito`.'
}

function refusalProblem (refusal: Refusal): Problem {
  const { code, detail, ...facts } = refusal
  return problem(code, { detail, ...facts })
}

/**
 * The action routes of spec section 4.4: POST /candidatos/{id}/{action} performs an action, DELETE
 * cancels it. Each is one transaction on the candidato's locked row, so concurrent actions queue and
 * each is decided on the state the previous one left.
 */
const actions: FastifyPluginAsyncTypebox = async (fastify) => {
  const { candidatos } = fastify.repositories

  const declare = (version: string, move: Move) => {
    const v1 = version === '1.0'
    const CandidatoSchema = v1 ? CandidatoV1Schema : CandidatoV2Schema
    const post = move.method === 'POST'
    const withTarget = needsTargetVaga(move)
    fastify.route({
      method: move.method,
      url: `/:id/${move.action}`,
      constraints: { apiVersion: version },
      config: { scopes: ['candidatos:write'] },
      schema: {
        summary: PURPOSE[`${move.method} ${move.action}`],
        description: 'Refused with 409 (code `ActionNotAllowed`, naming `currentStatus` and `allowedActions`) when the current state does not allow it. Honours `If-Match`.',
        tags: ['candidatos'],
        params: IdParams,
        headers: IfMatchHeaders,
        ...(withTarget && { body: TargetVagaSchema }),
        response: {
          ...(post
            ? { 200: withHeaders(CandidatoSchema, 'The candidato after the action') }
            : { 204: { description: 'The action was cancelled', type: 'null' } }),
          409: withTarget ? problemResponse('ActionNotAllowed', 'VagaFechada', 'SameVaga') : problemResponse('ActionNotAllowed'),
          412: problemResponse('PreconditionFailed'),
          ...(withTarget && { 422: problemResponse('VagaNotFound') })
        }
      },
      handler: async (request, reply) => {
        const ifMatch = request.headers['if-match'] as string | undefined
        const outcome = await candidatos.applyMove((request.params as { id: string }).id, {
          move,
          vagaId: withTarget ? (request.body as { vagaId: string }).vagaId : undefined,
          actor: actorOf(request),
          precondition: ifMatchPrecondition(ifMatch, current => candidatoEtag(current, version))
        })
        switch (outcome.outcome) {
          case 'not-found': throw notFound()
          case 'precondition-failed': throw preconditionFailed()
          case 'target-not-found': throw problem('VagaNotFound', { vagaId: outcome.vagaId })
          case 'refused': throw refusalProblem(outcome.refusal)
        }
        const candidato = outcome.value
        setValidators(reply, candidatoEtag(candidato, version), candidatoLastModified(candidato, version))
        if (!post) return reply.code(204).send()
        return candidatoRepresentation(candidato, version, hrefOf(request))
      }
    })
  }

  for (const version of ['1.0', '2.0']) {
    for (const move of MOVES) declare(version, move)
  }
}

export default actions
