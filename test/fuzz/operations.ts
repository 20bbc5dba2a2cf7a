import type { FastifyInstance } from 'fastify'
import { documentGroups } from '../../src/openapi/groups.ts'

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  schema?: Record<string, unknown>
}

/** One operation of one OpenAPI document, as the fuzz test needs it. */
export interface Operation {
  document: string
  method: string
  path: string
  parameters: Parameter[]
  /** The JSON body schema, when the operation takes a body. */
  body?: Record<string, unknown>
  scopes: string[]
}

/** The OpenAPI documents the service publishes: one per version of its version table, and ops. */
export function publishedDocuments (app: FastifyInstance): string[] {
  return documentGroups(app.apiVersions).map(group => group.name)
}

/** Every operation of every OpenAPI document the service publishes. */
export async function publishedOperations (app: FastifyInstance): Promise<Operation[]> {
  const operations: Operation[] = []
  for (const document of publishedDocuments(app)) {
    const res = await app.inject(`/docs/${document}/openapi.json`)
    const paths = res.json().paths as Record<string, Record<string, Record<string, unknown>>>
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const content = (operation.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined)?.content
        const security = (operation.security ?? []) as Array<Record<string, string[]>>
        operations.push({
          document,
          method: method.toUpperCase(),
          path,
          parameters: (operation.parameters ?? []) as Parameter[],
          ...(content !== undefined && { body: content['application/json']?.schema ?? {} }),
          scopes: security.flatMap(requirement => Object.values(requirement).flat())
        })
      }
    }
  }
  return operations
}
