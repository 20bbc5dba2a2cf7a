// Route schemas compiled once per process: validators and serializers are kept per schema object,
// so a schema that many routes declare (a problem answer) or that every app of a process declares
// (the tests build hundreds) is compiled once. Compiling them is most of what building an app costs.
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify'
import { requiringDecimalIntegers } from './decimal-integers.js'
import { refusingNonFinite } from './finite-numbers.js'

// Fastify's own compilers. Ajv's pool keeps one instance per set of options, which keeps each
// validator per schema object.
const buildValidator = AjvCompiler()
const buildSerializer = SerializerSelector()

/** Fastify's Ajv compiler with these options, shared by every app of the process. */
export function sharedValidatorCompiler (customOptions: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  return buildValidator({}, { customOptions }) as FastifySchemaCompiler<unknown>
}

type Serializer = ReturnType<ReturnType<ReturnType<typeof SerializerSelector>>>
const serializers = new WeakMap<object, Map<string, Serializer>>()

function cachedSerializers (externalSchemas: Record<string, unknown> | undefined, options: unknown) {
  const compile = buildSerializer(externalSchemas as never, options as never)
  // A serializer that resolves shared schemas depends on them too: compiled for its app alone.
  if (Object.keys(externalSchemas ?? {}).length > 0) return compile
  const key = JSON.stringify(options ?? {})
  return (route: Parameters<typeof compile>[0]): Serializer => {
    let byOptions = serializers.get(route.schema as object)
    if (byOptions === undefined) serializers.set(route.schema as object, byOptions = new Map())
    let serialize = byOptions.get(key)
    if (serialize === undefined) byOptions.set(key, serialize = compile(route))
    return serialize
  }
}

/**
 * Fastify's `schemaController` option: validators refusing non-finite numbers and integers not
 * written in decimal digits (src/http/finite-numbers.ts, decimal-integers.ts), serializers as Fastify
 * makes them; both shared by every app of the process.
 */
export function schemaController (): NonNullable<FastifyServerOptions['schemaController']> {
  return {
    compilersFactory: {
      buildValidator: ((externalSchemas: unknown, ajvOptions: unknown) =>
        requiringDecimalIntegers(refusingNonFinite(buildValidator(externalSchemas as never, ajvOptions as never) as FastifySchemaCompiler<unknown>))) as never,
      buildSerializer: cachedSerializers as never
    }
  }
}
