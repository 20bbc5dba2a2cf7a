import { Type } from '@sinclair/typebox'
import { catalogueEntry, type CatalogueEntry } from './error-catalogue.ts'

// How a route declares an error answer: one shared `Problem` schema, narrowed to the codes the answer
// can carry, each explained by the error catalogue. The OpenAPI documents are built from these.

export const PROBLEM_MEDIA_TYPE = 'application/problem+json'

const FieldError = Type.Object({
  in: Type.String({ description: 'The part of the request: `body`, `querystring`, `headers`', examples: ['body'] }),
  field: Type.String({ description: 'A JSON pointer into that part', examples: ['/titulo'] }),
  message: Type.String({ examples: ['must NOT have fewer than 1 characters'] })
})

const VersionSource = Type.Object({
  source: Type.String({ description: 'Where the version was named', examples: ['url-segment'] }),
  value: Type.Union([Type.String(), Type.Null()], { description: 'The version as named' })
})

export const ProblemSchema = Type.Object({
  type: Type.String({ description: 'A URN naming the kind of problem', examples: ['urn:problem-type:recrutamento:UnsupportedApiVersion'] }),
  title: Type.String({ examples: ['Bad Request'] }),
  status: Type.Integer({ minimum: 400, maximum: 599, examples: [400] }),
  detail: Type.Optional(Type.String({ examples: ['API version 3.0 is not supported; the supported versions are 1.0, 2.0.'] })),
  instance: Type.String({ description: 'The path of the request', examples: ['/api/v3/user'] }),
  code: Type.Optional(Type.String({ description: 'Machine-readable cause', examples: ['UnsupportedApiVersion'] })),
  requestId: Type.String({ description: 'Matches the x-request-id header and the log' }),
  errors: Type.Optional(Type.Array(FieldError, { description: '`ValidationFailed`: each field that failed' })),
  sources: Type.Optional(Type.Array(VersionSource, { description: 'Version problems: each way a version was named' })),
  requestedVersion: Type.Optional(Type.String({ description: '`UnsupportedApiVersion`: the version asked for' })),
  supportedVersions: Type.Optional(Type.Array(Type.String(), { description: 'Version problems: the versions served' })),
  requiredScopes: Type.Optional(Type.Array(Type.String(), { description: '`InsufficientScope`: the scopes this operation requires' })),
  currentStatus: Type.Optional(Type.String({ description: '`ActionNotAllowed`: the candidato\'s status' })),
  allowedActions: Type.Optional(Type.Array(Type.Object({ method: Type.String(), action: Type.String() }), { description: '`ActionNotAllowed`: what the status allows' })),
  vagaId: Type.Optional(Type.String({ description: 'The vaga a refusal is about' })),
  tipos: Type.Optional(Type.Array(Type.String(), { description: '`WebhookTypesForbidden`: the event types refused' }))
}, { additionalProperties: true, description: 'An RFC 9457 problem; `code` names the cause' })

/** The codes an answer's schema carries (kept in it until the document is assembled). */
export function problemCodes (response: unknown): string[] | undefined {
  const schema = (response as { content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> } | undefined)
    ?.content?.[PROBLEM_MEDIA_TYPE]?.schema
  return schema?.properties?.code?.enum
}

function describe (entries: CatalogueEntry[]): string {
  return entries.map(entry => `- \`${entry.code}\`: ${entry.when}`).join('\n')
}

/** An error answer that can carry these codes (each must be in the error catalogue). */
export function problemResponse (...codes: string[]) {
  const entries = [...new Set(codes)].map(catalogueEntry)
  return {
    description: describe(entries),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: { ...ProblemSchema, properties: { ...ProblemSchema.properties, code: Type.String({ enum: entries.map(entry => entry.code) }) } }
      }
    }
  }
}
