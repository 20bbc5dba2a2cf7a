import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { requiringDecimalIntegers } from './decimal-integers.js'
import { refusingNonFinite } from './finite-numbers.js'

const shared = { allErrors: true, removeAdditional: false, useDefaults: true } as const

/**
 * Request bodies are validated without type coercion: `{"titulo": 42}` or `{"nome": ["Ana"]}` is a
 * 400, not the string "42" stored. Query strings, path parameters and headers arrive as text, so
 * they keep the service-wide coercion, integers written in decimal digits only.
 */
export function strictBodyValidation (fastify: FastifyInstance): void {
  const build = AjvCompiler()
  const strict = refusingNonFinite(build({}, { customOptions: { ...shared, coerceTypes: false } }) as FastifySchemaCompiler<unknown>)
  const coercing = requiringDecimalIntegers(refusingNonFinite(build({}, { customOptions: { ...shared, coerceTypes: 'array' } }) as FastifySchemaCompiler<unknown>))
  fastify.setValidatorCompiler(route => route.httpPart === 'body' ? strict(route) : coercing(route))
}
