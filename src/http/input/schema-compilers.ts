// Route schemas compiled once per process: validators and serializers are kept by the schema's JSON,
// so a schema that many routes declare (a problem answer, an empty 204) or that every app of a
// process declares (the tests build hundreds) is compiled once. Compiling them is most of what
// building an app costs.
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify'
import { requiringDecimalIntegers } from './decimal-integers.ts'
import { refusingNonFinite } from './finite-numbers.ts'
import { narrowDateTimeFormat } from './date-time.ts'

type Compile<F> = (route: { schema: unknown }) => F

/** `compile`, its results kept in `kept` by the schema's JSON: equal schemas share one function. */
function keptByContent<F> (compile: Compile<F>, kept: Map<string, F>): Compile<F> {
  return route => {
    const key = JSON.stringify(route.schema)
    let compiled = kept.get(key)
    if (compiled === undefined) kept.set(key, compiled = compile(route))
    return compiled
  }
}

// Fastify's own compilers. Ajv's pool gives one compiler per set of shared schemas and options.
const buildValidator = AjvCompiler()
const buildSerializer = SerializerSelector()
const validators = new WeakMap<object, Map<string, unknown>>()
const serializers = new Map<string, Map<string, unknown>>()

function sharedValidators (externalSchemas: unknown, options: unknown): FastifySchemaCompiler<unknown> {
  const withDateTimes = { ...(options as object), onCreate: narrowDateTimeFormat }
  const compile = buildValidator(externalSchemas as never, withDateTimes as never) as FastifySchemaCompiler<unknown>
  let kept = validators.get(compile)
  if (kept === undefined) validators.set(compile, kept = new Map())
  return keptByContent(compile as Compile<unknown>, kept) as FastifySchemaCompiler<unknown>
}

/** Fastify's Ajv compiler with these options, shared by every app of the process. */
export function sharedValidatorCompiler (customOptions: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  return sharedValidators({}, { customOptions })
}

function sharedSerializers (externalSchemas: Record<string, unknown> | undefined, options: unknown): Compile<unknown> {
  const compile = buildSerializer(externalSchemas as never, options as never) as Compile<unknown>
  // A serializer that resolves shared schemas depends on them too: compiled for its app alone.
  if (Object.keys(externalSchemas ?? {}).length > 0) return compile
  const key = JSON.stringify(options ?? {})
  let kept = serializers.get(key)
  if (kept === undefined) serializers.set(key, kept = new Map())
  return keptByContent(compile, kept)
}

/**
 * Fastify's `schemaController` option: validators refusing non-finite numbers, integers not written
 * in decimal digits and date-times the service cannot use (src/http/input/finite-numbers.ts,
 * decimal-integers.ts, date-time.ts), serializers as Fastify makes them; both shared by every app of
 * the process.
 */
export function schemaController (): NonNullable<FastifyServerOptions['schemaController']> {
  return {
    compilersFactory: {
      buildValidator: ((externalSchemas: unknown, ajvOptions: unknown) =>
        requiringDecimalIntegers(refusingNonFinite(sharedValidators(externalSchemas, ajvOptions)))) as never,
      buildSerializer: sharedSerializers as never
    }
  }
}
