import t from 'tap'
import Fastify, { type FastifySchemaCompiler } from 'fastify'
import { schemaController } from '../../../src/http/input/schema-compilers.ts'

const Pong = { type: 'object', properties: { pong: { type: 'string' } } }

type SerializerCompiler = (route: { schema: object }) => unknown

/** A serializer compiler of the service's schema controller, as Fastify asks an app for one. */
function serializerCompiler (externalSchemas: Record<string, unknown> = {}): SerializerCompiler {
  return schemaController().compilersFactory!.buildSerializer!(externalSchemas, {}) as SerializerCompiler
}

/** The answer of an app on the service's schema controller whose one route declares `schema`. */
async function answerOf (schema: object, shared?: object) {
  const app = Fastify({ schemaController: schemaController() })
  t.teardown(() => app.close())
  if (shared !== undefined) app.addSchema(shared)
  app.get('/pong', { schema: { response: { 200: schema } } }, async () => ({ pong: 'yes', extra: 'dropped' }))
  return (await app.inject('/pong')).json()
}

t.test('two apps of one process answer alike from one compiled serializer per schema', async t => {
  t.same(await answerOf(Pong), { pong: 'yes' }, 'the response schema shapes the answer')
  t.same(await answerOf(Pong), { pong: 'yes' }, 'in a second app too')
  const compiler = serializerCompiler()
  t.equal(compiler({ schema: Pong }), serializerCompiler()({ schema: Pong }), 'the same schema: the same serializer, whichever app asks')
  t.equal(compiler({ schema: structuredClone(Pong) }), compiler({ schema: Pong }), 'an equal copy too')
  t.not(compiler({ schema: { ...Pong, required: ['pong'] } }), compiler({ schema: Pong }), 'another schema is compiled on its own')
})

t.test('a serializer that resolves shared schemas is compiled for its app alone', async t => {
  const shared = { Word: { $id: 'Word', type: 'string' } }
  const withShared = serializerCompiler(shared)
  const schema = { type: 'object', properties: { pong: { $ref: 'Word#' } } }
  t.not(withShared({ schema }), withShared({ schema }), 'compiled each time it is asked for')
  t.same(await answerOf(schema, shared.Word), { pong: 'yes' })
})

t.test('validators are shared by equal schemas, and answer alike', async t => {
  const validatorCompiler = (): FastifySchemaCompiler<unknown> =>
    schemaController().compilersFactory!.buildValidator!({}, { customOptions: { coerceTypes: 'array' } }) as FastifySchemaCompiler<unknown>
  const Query = { type: 'object', properties: { limit: { type: 'integer', maximum: 100 } } }
  const route = (schema: object) => ({ schema, method: 'GET', url: '/', httpPart: 'querystring' }) as never
  const validate = validatorCompiler()(route(Query)) as (data: unknown) => boolean
  const copy = validatorCompiler()(route(structuredClone(Query))) as (data: unknown) => boolean
  t.ok(validate({ limit: '20' }) && copy({ limit: '20' }), 'both accept a limit within bounds')
  t.notOk(validate({ limit: '101' }) || copy({ limit: '101' }), 'both refuse one past the bound')
  t.notOk(copy({ limit: 'Infinity' }), 'and a non-finite number')
})
