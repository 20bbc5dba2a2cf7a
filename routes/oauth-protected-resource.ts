import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { METADATA_PATH, protectedResourceMetadata } from '../src/auth/resource-metadata.ts'

const Metadata = Type.Object({
  resource: Type.String({ description: 'This resource server\'s identifier' }),
  authorization_servers: Type.Optional(Type.Array(Type.String(), { description: 'Issuers whose tokens are accepted' })),
  scopes_supported: Type.Array(Type.String(), { description: 'Every scope some operation requires' }),
  bearer_methods_supported: Type.Array(Type.String(), { description: 'Where a bearer token may be sent' })
})

/** GET /.well-known/oauth-protected-resource: RFC 9728 metadata, so clients find how to get a token. */
const oauthProtectedResource: FastifyPluginAsyncTypebox = async (fastify) => {
  const { AUTH_RESOURCE_URL, AUTH_ISSUER, AUTH_QUERY_TOKEN } = fastify.config
  fastify.get(METADATA_PATH, {
    config: { public: true, cacheable: true },
    schema: {
      summary: 'Protected resource metadata (RFC 9728)',
      description: 'How to get a token for this service: the authorization servers, every scope some operation requires, and where a token may be sent.',
      tags: ['auth'],
      response: { 200: Metadata }
    }
  }, async (request, reply) => {
    reply.header('cache-control', 'public, max-age=300')
    return protectedResourceMetadata({
      // Without a configured identifier, the origin the client used names the resource.
      resource: AUTH_RESOURCE_URL ?? `${request.protocol}://${request.host}`,
      issuer: AUTH_ISSUER,
      scopes: fastify.declaredScopes,
      queryTokens: AUTH_QUERY_TOKEN
    })
  })
}

export default oauthProtectedResource
