import type { FastifySchemaCompiler } from 'fastify'

interface Validate {
  (data: unknown): boolean
  errors?: unknown[] | null
}

// Ajv's type coercion reads text as JavaScript does: `0x10`, `1e1`, `0b1` and ` 16` all become 16.
const DECIMAL_INTEGER = /^-?[0-9]+$/

/** The top-level properties a schema declares as integers (`limit`, `offset`). */
function integerProperties (schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {}
  return Object.keys(properties).filter(name => {
    const type = properties[name]?.type
    return type === 'integer' || (Array.isArray(type) && type.includes('integer'))
  })
}

/** The integer properties whose text is not written in decimal digits. */
function nonDecimal (data: unknown, names: readonly string[]): string[] {
  if (data === null || typeof data !== 'object') return []
  return names.filter(name => {
    const value = (data as Record<string, unknown>)[name]
    return (Array.isArray(value) ? value : [value]).some(text => typeof text === 'string' && !DECIMAL_INTEGER.test(text))
  })
}

/**
 * The same schema compiler, its validators refusing an integer given as text in any form but decimal
 * digits, as an ordinary validation error beside the schema's own. Only the parts that arrive as text
 * (query string, path parameters, headers) are concerned: a JSON body carries numbers.
 */
export function requiringDecimalIntegers (compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return route => {
    const validate = compile(route) as Validate
    const names = route.httpPart === 'body' ? [] : integerProperties(route.schema)
    if (names.length === 0) return validate as never
    const wrapped: Validate = (data: unknown) => {
      // Read before validating: coercion replaces the text with the number it read.
      const refused = nonDecimal(data, names)
      const valid = validate(data)
      const own = refused.map(name => ({ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be an integer in decimal digits' }))
      const others = (validate.errors ?? []).filter(error => !refused.some(name => (error as { instancePath?: string }).instancePath === `/${name}`))
      wrapped.errors = own.length + others.length === 0 ? null : [...own, ...others]
      return valid && own.length === 0
    }
    return wrapped as never
  }
}
