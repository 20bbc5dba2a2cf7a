import type { FastifyInstance } from 'fastify'
import { requiringDecimalIntegers } from './decimal-integers.ts'
import { refusingNonFinite } from './finite-numbers.ts'
import { sharedValidatorCompiler } from './schema-compilers.ts'

const ajvOptions = { allErrors: true, removeAdditional: false, useDefaults: true } as const

const strict = refusingNonFinite(sharedValidatorCompiler({ ...ajvOptions, coerceTypes: false }))
const coercing = requiringDecimalIntegers(refusingNonFinite(sharedValidatorCompiler({ ...ajvOptions, coerceTypes: 'array' })))

/**
 * Request bodies are validated without type coercion: `{"titulo": 42}` or `{"nome": ["Ana"]}` is a
 * 400, not the string "42" stored. Query strings, path parameters and headers arrive as text, so
 * they keep the service-wide coercion, integers written in decimal digits only.
 */
export function strictBodyValidation (fastify: FastifyInstance): void {
  fastify.setValidatorCompiler(route => route.httpPart === 'body' ? strict(route) : coercing(route))
}
