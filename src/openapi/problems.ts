import { STATUS_CODES } from 'node:http'
import { catalogueEntry, type CatalogueEntry } from '../http/problems/error-catalogue.ts'
import { problemType } from '../http/problems/problem.ts'
import { PROBLEM_MEDIA_TYPE, ProblemSchema, problemCodes } from '../http/problems/problem-response.ts'

// How the documents describe error answers: every answer points at the one shared `Problem` schema,
// with an example of its first code.

const EXAMPLE_ID = '0b7c1a5e-8f2d-4c3b-9a6e-1f2d3c4b5a69'

function example (entry: CatalogueEntry, path: string) {
  return {
    type: problemType(entry.code),
    title: STATUS_CODES[entry.status] ?? 'Error',
    status: entry.status,
    detail: `${entry.when}.`,
    instance: path.replace(/\{[^}]+\}/g, EXAMPLE_ID),
    code: entry.code,
    requestId: '5f0c6a2e-3b1d-4e8f-9a7c-2d4e6f8a0b1c'
  }
}

type Media = { schema?: unknown, example?: unknown }
type Operation = { responses?: Record<string, { content?: Record<string, Media> }> }

/**
 * Every error answer points at one `components.schemas.Problem`, narrowed to the codes it can carry,
 * with an example of the first.
 */
export function shareProblemSchema<D extends { paths?: Record<string, Record<string, unknown>>, components?: Record<string, unknown> }> (document: D): D {
  let used = false
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(operations) as Operation[]) {
      for (const response of Object.values(operation.responses ?? {})) {
        const media = response.content?.[PROBLEM_MEDIA_TYPE]
        if (media === undefined) continue
        const codes = problemCodes(response) ?? []
        media.schema = codes.length === 0
          ? { $ref: '#/components/schemas/Problem' }
          : { allOf: [{ $ref: '#/components/schemas/Problem' }], type: 'object', properties: { code: { type: 'string', enum: codes } } }
        if (codes.length > 0) media.example = example(catalogueEntry(codes[0]!), path)
        used = true
      }
    }
  }
  if (!used) return document
  const components = document.components ?? {}
  return { ...document, components: { ...components, schemas: { ...(components.schemas as object | undefined), Problem: ProblemSchema } } }
}
