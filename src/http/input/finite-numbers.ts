import type { FastifySchemaCompiler } from 'fastify'

interface Validate {
  (data: unknown): boolean
  errors?: unknown[] | null
}

/**
 * Where a number that is not finite sits in validated data, as a JSON pointer; undefined if nowhere.
 * The pointer is built only on the way back from a find: this runs on every validated request.
 */
function nonFinitePath (value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : ''
  if (value === null || typeof value !== 'object') return undefined
  for (const key in value) {
    const found = nonFinitePath((value as Record<string, unknown>)[key])
    if (found !== undefined) return `/${key}${found}`
  }
  return undefined
}

/**
 * Ajv coerces the text `Infinity` (or `1e400`) to a number that passes `type: integer`, then skips
 * `minimum` and `maximum`, which it applies to finite numbers only: `?limit=Infinity` reached the
 * database as a 500. JSON.parse also reads `1e400` as Infinity. A validator wrapped here refuses any
 * non-finite number left in the validated data, as an ordinary validation error (400 ValidationFailed).
 */
function refusingNonFiniteNumbers (validate: Validate): Validate {
  const wrapped: Validate = (data: unknown) => {
    if (!validate(data)) {
      wrapped.errors = validate.errors
      return false
    }
    const path = nonFinitePath(data)
    wrapped.errors = path === undefined
      ? null
      : [{ instancePath: path, schemaPath: '#', keyword: 'type', params: {}, message: 'must be a finite number' }]
    return path === undefined
  }
  return wrapped
}

/** The same schema compiler, its validators refusing non-finite numbers. */
export function refusingNonFinite (compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return route => refusingNonFiniteNumbers(compile(route) as Validate) as never
}
