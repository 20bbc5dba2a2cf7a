import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { problemResponse } from '../src/http/problems/problem-response.ts'
import { readDateTime } from '../src/http/input/date-time.ts'

const Params = Type.Object({ jti: Type.String({ pattern: '^[A-Za-z0-9._~:-]{1,200}$', description: 'The revoked token\'s jti claim' }) })
const Revocation = Type.Object({
  jti: Type.String(),
  expiresAt: Type.String({ format: 'date-time', description: 'When the entry is dropped: the token is expired by then' })
})
const RevokeBody = Type.Object({
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'The token\'s exp; default 24 hours from now' }))
}, { additionalProperties: false })

// Access tokens are short-lived; a revocation without a known expiry outlives any of them.
const DEFAULT_TTL_SECONDS = 24 * 3600

/** The token deny-list (docs/api.md, "Revocation"): bearer tokens have no native revocation. */
const revokedTokens: FastifyPluginAsyncTypebox = async (fastify) => {
  const denyList = fastify.tokenDenyList

  fastify.put('/revoked-tokens/:jti', {
    config: { scopes: ['tokens:revoke'] },
    schema: {
      summary: 'Revoke an access token by its jti',
      description: 'Every later request with a token carrying this jti answers 401 invalid_token.',
      tags: ['auth'],
      params: Params,
      body: Type.Optional(RevokeBody),
      response: { 200: Revocation, 400: problemResponse('AlreadyExpired') }
    }
  }, async (request) => {
    const expiresAt = request.body?.expiresAt === undefined
      ? Math.floor(Date.now() / 1000) + DEFAULT_TTL_SECONDS
      : Math.floor(readDateTime(request.body.expiresAt)!.getTime() / 1000)
    if (expiresAt * 1000 <= Date.now()) {
      throw problem('AlreadyExpired')
    }
    await denyList.revoke(request.params.jti, expiresAt)
    return { jti: request.params.jti, expiresAt: new Date(expiresAt * 1000).toISOString() }
  })

  fastify.get('/revoked-tokens/:jti', {
    config: { scopes: ['tokens:revoke'] },
    schema: {
      summary: 'Whether a jti is revoked',
      description: 'Answers 200 while the token with this jti is refused, 404 when it is not revoked (or its entry has expired).',
      tags: ['auth'],
      params: Params,
      response: { 200: Type.Object({ jti: Type.String() }) }
    }
  }, async (request) => {
    if (!await denyList.isRevoked(request.params.jti)) throw problem('NotFound', { detail: 'This jti is not revoked.' })
    return { jti: request.params.jti }
  })
}

export default revokedTokens
