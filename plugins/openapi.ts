import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { documentInfo, tagObjects } from '../src/openapi/document-info.ts'
import { documentedPath, documentGroups, type DocumentGroup } from '../src/openapi/groups.ts'
import { bearerOnly, securitySchemes } from '../src/auth/openapi-security.ts'
import { dropUnusedSecuritySchemes, operationSchema } from '../src/openapi/operation.ts'
import { shareProblemSchema } from '../src/openapi/problems.ts'
import { serveDocument } from '../src/openapi/served-document.ts'
import { webhookDescriptions } from '../src/openapi/webhooks.ts'
import { setRoutePolicyDefaults } from '../src/http/policy/route-policy.ts'

type OpenApiDocument = Record<string, unknown> & { paths?: Record<string, Record<string, { tags?: string[] }>> }

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of a group (`v1`, `v2`, `ops`), built from the route schemas. */
    openapiDocument: (group: string) => OpenApiDocument
  }
}

const HIDDEN = { schema: { hide: true } }

function decoratorOf (group: DocumentGroup): string {
  return `openapi:${group.name}`
}

/** One OpenAPI document and one interactive documentation per version group, plus `ops`. */
async function openapi (fastify: FastifyInstance): Promise<void> {
  const table = fastify.apiVersions
  const vendorName = fastify.config.API_VENDOR_NAME
  const groups = documentGroups(table)

  // Each registration collects every route of the service (its onRoute hook sits at the root) and
  // keeps, through its transform, only the routes of its own group.
  for (const group of groups) {
    await fastify.register(swagger, {
      decorator: decoratorOf(group),
      openapi: {
        openapi: '3.1.0',
        info: documentInfo(group, table, vendorName),
        servers: [{ url: '/', description: 'This service' }],
        // The schemes' names are needed while operations are built; their scopes are filled in below.
        components: { securitySchemes: securitySchemes(fastify.config.AUTH_TOKEN_URL, []) as never }
      },
      transform ({ schema, route }) {
        const path = documentedPath(group, route as RouteOptions)
        if (path === undefined) return { schema: { ...schema, hide: true }, url: route.url }
        const deprecated = group.version?.deprecated === true
        const documented = operationSchema(route as RouteOptions, { versioned: group.version !== undefined, deprecated }) as { security?: Array<Record<string, string[]>> }
        const withoutOauth2 = fastify.config.AUTH_TOKEN_URL === undefined && documented.security !== undefined
        return { schema: (withoutOauth2 ? { ...documented, ...bearerOnly(documented.security!) } : documented) as never, url: path }
      },
      transformObject (documents) {
        const document = (documents as unknown as { openapiObject: OpenApiDocument }).openapiObject
        const used = Object.values(document.paths ?? {}).flatMap(operations => Object.values(operations).flatMap(operation => operation.tags ?? []))
        // The scopes are known once every route is declared: the same set the RFC 9728 metadata lists.
        const components = { ...(document.components as object | undefined), securitySchemes: securitySchemes(fastify.config.AUTH_TOKEN_URL, fastify.declaredScopes) }
        return dropUnusedSecuritySchemes(shareProblemSchema({ ...document, ...webhookDescriptions(table, group.version), components, tags: tagObjects(used) })) as never
      }
    })
  }

  fastify.decorate('openapiDocument', function (this: FastifyInstance, name: string) {
    const group = groups.find(g => g.name === name)
    if (group === undefined) throw new Error(`No OpenAPI document group ${name}`)
    return (fastify as unknown as Record<string, () => OpenApiDocument>)[decoratorOf(group)]!()
  })

  // A selector in the docs' top bar switches between the groups, newest version first.
  const selector = [...groups].sort((a, b) => (a.version === undefined ? 1 : 0) - (b.version === undefined ? 1 : 0) || b.name.localeCompare(a.name))
    .map(group => ({ url: group.documentPath, name: group.version === undefined ? 'ops' : `${group.name}${group.version.deprecated ? ' (deprecated)' : ''}` }))

  // `/docs` leads to the newest version that is not deprecated.
  fastify.get('/docs', { ...HIDDEN, config: { public: true } }, async (_request, reply) => reply.redirect(`/docs/${table.current.group}`, 302))

  for (const group of groups) {
    await fastify.register(async function docs (scope) {
      const document = () => fastify.openapiDocument(group.name)
      // @fastify/swagger-ui always reads the nearest `swagger()`: this scope's is this group's document.
      scope.decorate('swagger', document as never)
      // The document, and the UI's own copy of it at `json`, are served from one serialized buffer.
      const sendDocument = serveDocument(document)
      // The docs are public, every route swagger-ui adds here included.
      setRoutePolicyDefaults(scope, { public: true })
      scope.addHook('onRoute', route => {
        if (route.url === `${group.docsPath}/json`) route.handler = sendDocument
      })
      scope.get(group.documentPath, { ...HIDDEN, config: { cacheable: true } }, sendDocument)
      await scope.register(swaggerUi, {
        routePrefix: group.docsPath,
        // Passed to Swagger UI as is; its type here omits `urls.primaryName`.
        uiConfig: {
          urls: selector,
          'urls.primaryName': selector.find(entry => entry.url === group.documentPath)!.name,
          deepLinking: true
        } as never
      })
    })
  }
}

export default fp(openapi, { name: 'openapi', fastify: '5.x', dependencies: ['config', 'api-versioning', 'bearer-auth', 'rate-limit'] })
