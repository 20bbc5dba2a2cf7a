import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

// The versioned example resource (docs/api.md, "API versions"): one action per version, at one version-less path.
const user: FastifyPluginAsyncTypebox = async (fastify) => {
  for (const version of fastify.apiVersions.versions) {
    const text = `user, served by API version ${version.version}`
    fastify.get('/user', {
      constraints: { apiVersion: version.version },
      schema: {
        summary: 'The versioned example resource',
        description: 'Answers plain text naming the API version that served the request.',
        tags: ['user'],
        operationId: `getUserV${version.version.replace('.', '')}`,
        response: {
          200: {
            description: 'The name of the version that served the request',
            content: { 'text/plain': { schema: Type.String({ examples: [text] }) } }
          }
        }
      }
    }, async (_request, reply) => {
      return reply.type('text/plain; charset=utf-8').send(text)
    })
  }
}

export default user
