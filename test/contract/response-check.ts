// Checks recorded answers against an OpenAPI document: the status is declared for the operation,
// the body validates against the declared schema (Ajv, strict), and no field appears that the
// schema does not declare.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

type Schema = Record<string, unknown>
interface Media { schema?: Schema }
interface Operation { responses: Record<string, { content?: Record<string, Media> }> }
export interface Document { paths: Record<string, Record<string, Operation>>, components?: { schemas?: Record<string, Schema> } }

export interface Exchange { method: string, path: string, status: number, contentType: string | null, body: string }

const COMPONENT = '#/components/schemas/'

/** `#/components/schemas/X` as an id Ajv knows without the rest of the document. */
function rewriteRefs (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, inner]) =>
    [key, key === '$ref' && typeof inner === 'string' && inner.startsWith(COMPONENT) ? `urn:schema:${inner.slice(COMPONENT.length)}` : rewriteRefs(inner)]))
}

function pathPattern (template: string): RegExp {
  return new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`)
}

export function createChecker (document: Document) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
  addFormats.default(ajv)
  const components = document.components?.schemas ?? {}
  for (const [name, schema] of Object.entries(components)) ajv.addSchema(rewriteRefs(schema) as Schema, `urn:schema:${name}`)
  const compiled = new Map<Schema, ValidateFunction>()
  const routes = Object.entries(document.paths).map(([template, operations]) => ({ pattern: pathPattern(template), template, operations }))

  const resolve = (schema: Schema): Schema => typeof schema.$ref === 'string' ? resolve(components[schema.$ref.slice(COMPONENT.length)]!) : schema

  /** Fields of `value` that no branch of `schema` declares, as JSON pointers. */
  function undeclared (value: unknown, schema: Schema, at: string): string[] {
    const resolved = resolve(schema)
    const branches = [resolved, ...(['allOf', 'anyOf', 'oneOf'] as const).flatMap(key => (resolved[key] as Schema[] | undefined) ?? []).map(resolve)]
    if (Array.isArray(value)) {
      const items = branches.map(branch => branch.items as Schema | undefined).find(items => items !== undefined)
      return items === undefined ? [] : value.flatMap((item, index) => undeclared(item, items, `${at}/${index}`))
    }
    if (value === null || typeof value !== 'object') return []
    const declared = new Map<string, Schema[]>()
    // A map declares its keys by the schema of its values; `additionalProperties: true` declares nothing.
    const mapValues = branches.map(branch => branch.additionalProperties).filter((inner): inner is Schema => typeof inner === 'object')
    for (const branch of branches) {
      for (const [name, inner] of Object.entries((branch.properties as Record<string, Schema> | undefined) ?? {})) declared.set(name, [...(declared.get(name) ?? []), inner])
    }
    return Object.entries(value).flatMap(([name, inner]) => {
      const schemas = declared.get(name) ?? (mapValues.length > 0 ? mapValues : undefined)
      if (schemas === undefined) return [`${at}/${name}`]
      // A field is fine when one of its declarations covers it (unions of object shapes).
      const misses = schemas.map(s => undeclared(inner, s, `${at}/${name}`))
      return misses.find(miss => miss.length === 0) ?? misses[0]!
    })
  }

  /** What is wrong with this answer, or an empty list. */
  return function check (exchange: Exchange): string[] {
    // A fixed path wins over a template that also matches it (`/health/live` over `/health/{name}`).
    const route = routes.find(r => r.template === exchange.path) ?? routes.find(r => r.pattern.test(exchange.path))
    const operation = route?.operations[exchange.method.toLowerCase()]
    if (route === undefined || operation === undefined) return [`${exchange.method} ${exchange.path} is no operation of the document`]
    const name = `${exchange.method} ${route.template} ${exchange.status}`
    const response = operation.responses[String(exchange.status)]
    if (response === undefined) return [`${name}: the status is not declared`]
    if (exchange.body === '') return response.content === undefined || exchange.status === 304 ? [] : [`${name}: no body, but one is declared`]
    const mediaType = (exchange.contentType ?? '').split(';')[0]!.trim()
    const schema = response.content?.[mediaType]?.schema
    if (schema === undefined) return [`${name}: ${mediaType} is not declared`]
    let validate = compiled.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(rewriteRefs(schema) as Schema)
      compiled.set(schema, validate)
    }
    const body: unknown = mediaType.startsWith('text/') ? exchange.body : JSON.parse(exchange.body)
    const problems = validate(body) ? [] : (validate.errors ?? []).map(error => `${name}: ${error.instancePath} ${error.message ?? ''}`)
    return [...problems, ...undeclared(body, schema, '').map(field => `${name}: ${field} is not declared`)]
  }
}
