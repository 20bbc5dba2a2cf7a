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

/** The first integer property whose text is not written in decimal digits, if any. */
function nonDecimal (data: unknown, names: readonly string[]): string | undefined {
  if (data === null || typeof data !== 'object') return undefined
  for (const name of names) {
    const value = (data as Record<string, unknown>)[name]
    const texts = Array.isArray(value) ? value : [value]
    if (texts.some(text => typeof text === 'string' && !DECIMAL_INTEGER.test(text))) return name
  }
  return undefined
}

/**
 * The same schema compiler, its validators refusing an integer given as text in any form but decimal
 * digits (query strings, path parameters and headers arrive as text), as an ordinary validation error.
 */
export function requiringDecimalIntegers (compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return route => {
    const validate = compile(route) as Validate
    const names = integerProperties(route.schema)
    if (names.length === 0) return validate as never
    const wrapped: Validate = (data: unknown) => {
      const name = nonDecimal(data, names)
      if (name === undefined) {
        const valid = validate(data)
        wrapped.errors = validate.errors
        return valid
      }
      wrapped.errors = [{ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be an integer in decimal digits' }]
      return false
    }
    return wrapped as never
  }
}
