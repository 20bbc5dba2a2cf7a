import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ACTION_CALLS, needsTargetVaga, type ActionCall, type Refusal } from '../../../src/domain/candidato-actions.ts'
import { ifMatchPrecondition } from '../../../src/http/conventions/conditional.ts'
import type { Problem } from '../../../src/http/problems/problem.ts'
import { problem } from '../../../src/http/problems/error-catalogue.ts'
import { problemResponse } from '../../../src/http/problems/problem-response.ts'
import { TargetVagaSchema, candidatoDetailSchema, candidatoEtag, candidatoLastModified } from '../../../src/representations/candidato.ts'
import { candidatoVersions, type CandidatoProfile } from '../../../src/representations/candidato-versions.ts'
import { IdParams, IfMatchHeaders, actorOf, notFound, preconditionFailed, setValidators, withHeaders, hrefOf } from '../../../src/http/resources/common.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'

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
 * The action routes (docs/api.md, "Candidato states and actions"): POST /candidatos/{id}/{action} performs an action, DELETE
 * cancels it. Each is one transaction on the candidato's locked row, so concurrent actions queue and
 * each is decided on the state the previous one left.
 */
const actions: FastifyPluginAsyncTypebox = async (fastify) => {
  const { candidatos } = fastify.repositories

  const declare = (version: string, profile: CandidatoProfile, call: ActionCall) => {
    const { toBody, showsVaga } = profile
    const CandidatoSchema = candidatoDetailSchema(profile.schema)
    const post = call.method === 'POST'
    const withTarget = needsTargetVaga(call)
    const etagOf = (current: Parameters<typeof candidatoEtag>[0]) => candidatoEtag(current, version, showsVaga)

    const perform = async (request: FastifyRequest, reply: FastifyReply, id: string, ifMatch: string | undefined, vagaId: string | undefined): Promise<FastifyReply> => {
      const outcome = await candidatos.applyAction(id, { call, vagaId, actor: actorOf(request), precondition: ifMatchPrecondition(ifMatch, etagOf) })
      switch (outcome.outcome) {
        case 'not-found': throw notFound()
        case 'precondition-failed': throw preconditionFailed()
        case 'target-not-found': throw problem('VagaNotFound', { vagaId: outcome.vagaId })
        case 'refused': throw refusalProblem(outcome.refusal)
      }
      const candidato = outcome.value
      setValidators(reply, etagOf(candidato), candidatoLastModified(candidato, showsVaga))
      if (!post) return reply.code(204).send()
      return reply.send(toBody(candidato, hrefOf(request)))
    }

    const route = {
      method: call.method,
      url: `/:id/${call.action}`,
      constraints: { apiVersion: version },
      config: { scopes: ['candidatos:write'] }
    }
    const schema = {
      summary: PURPOSE[`${call.method} ${call.action}`],
      description: 'Refused with 409 (code `ActionNotAllowed`, naming `currentStatus` and `allowedActions`) when the current state does not allow it. Honours `If-Match`.',
      tags: ['candidatos'],
      params: IdParams,
      headers: IfMatchHeaders
    }
    const responses = {
      ...(post
        ? { 200: withHeaders(CandidatoSchema, 'The candidato after the action') }
        : { 204: { description: 'The action was cancelled', type: 'null' } }),
      412: problemResponse('PreconditionFailed')
    }

    if (withTarget) {
      fastify.route({
        ...route,
        schema: {
          ...schema,
          body: TargetVagaSchema,
          response: { ...responses, 409: problemResponse('ActionNotAllowed', 'VagaFechada', 'SameVaga'), 422: problemResponse('VagaNotFound') }
        },
        handler: async (request, reply) => await perform(request, reply, request.params.id, request.headers['if-match'], request.body.vagaId)
      })
    } else {
      fastify.route({
        ...route,
        schema: { ...schema, response: { ...responses, 409: problemResponse('ActionNotAllowed') } },
        handler: async (request, reply) => await perform(request, reply, request.params.id, request.headers['if-match'], undefined)
      })
    }
  }

  for (const { version, profile } of servedVersions(fastify.apiVersions, candidatoVersions)) {
    for (const call of ACTION_CALLS) declare(version, profile, call)
  }
}

export default actions
