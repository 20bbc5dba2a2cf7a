import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

const Link = Type.Object({
  rel: Type.String({ description: 'Relation of the link: `openapi` (the machine-readable description) or `docs` (the interactive documentation)' }),
  href: Type.String({ description: 'URI to follow' })
})

/** GET /api/versions: the version table, with where each version is described. */
const versions: FastifyPluginAsyncTypebox = async (fastify) => {
  // The examples name the version a request without one is served: the table's default.
  const example = fastify.apiVersions.defaultVersion
  const VersionInfo = Type.Object({
    version: Type.String({ description: 'The version label, `major.minor`', examples: [example.version] }),
    group: Type.String({ description: 'The group name used in URLs: `/api/{group}/...`', examples: [example.group] }),
    status: Type.Union([Type.Literal('supported'), Type.Literal('deprecated')]),
    isDefault: Type.Boolean({ description: 'Served when a request names no version' }),
    deprecationDate: Type.Optional(Type.String({ format: 'date-time' })),
    sunsetDate: Type.Optional(Type.String({ format: 'date-time', description: 'After this date the version may stop answering' })),
    links: Type.Array(Link)
  })
  const VersionList = Type.Object({ versions: Type.Array(VersionInfo) })

  const body = {
    versions: fastify.apiVersions.versions.map(v => ({
      version: v.version,
      group: v.group,
      status: v.deprecated ? 'deprecated' as const : 'supported' as const,
      isDefault: v.isDefault,
      ...(v.deprecatedAt !== undefined && { deprecationDate: v.deprecatedAt.toISOString() }),
      ...(v.sunsetAt !== undefined && { sunsetDate: v.sunsetAt.toISOString() }),
      links: [
        { rel: 'openapi', href: `/docs/${v.group}/openapi.json` },
        { rel: 'docs', href: `/docs/${v.group}` }
      ]
    }))
  }

  fastify.get('/versions', {
    config: { apiVersionNeutral: true },
    schema: {
      summary: 'List the API versions',
      description: 'Every supported version with its status, deprecation and sunset dates, and the URLs of its OpenAPI document and interactive documentation.',
      tags: ['versions'],
      operationId: 'listApiVersions',
      response: { 200: VersionList }
    }
  }, async () => body)
}

export default versions
