import t from 'tap'
import Fastify from 'fastify'
import { schemaController } from '../../src/http/schema-compilers.js'
import { problemResponse, PROBLEM_MEDIA_TYPE } from '../../src/openapi/problems.js'

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

t.test('two apps of one process answer alike from one compiled serializer per schema object', async t => {
  t.same(await answerOf(Pong), { pong: 'yes' }, 'the response schema shapes the answer')
  t.same(await answerOf(Pong), { pong: 'yes' }, 'in a second app too')
  const compiler = serializerCompiler()
  t.equal(compiler({ schema: Pong }), serializerCompiler()({ schema: Pong }), 'the same schema object: the same serializer, whichever app asks')
  t.not(compiler({ schema: { ...Pong } }), compiler({ schema: Pong }), 'an equal copy is compiled on its own')
})

t.test('a serializer that resolves shared schemas is compiled for its app alone', async t => {
  const shared = { Word: { $id: 'Word', type: 'string' } }
  const withShared = serializerCompiler(shared)
  const schema = { type: 'object', properties: { pong: { $ref: 'Word#' } } }
  t.not(withShared({ schema }), withShared({ schema }), 'compiled each time it is asked for')
  t.same(await answerOf(schema, shared.Word), { pong: 'yes' })
})

t.test('an error answer declared with the same codes carries the same schema object', async t => {
  const schemaOf = (response: ReturnType<typeof problemResponse>) => response.content[PROBLEM_MEDIA_TYPE].schema
  t.equal(schemaOf(problemResponse('VagaNotFound', 'ValidationFailed')), schemaOf(problemResponse('VagaNotFound', 'ValidationFailed', 'VagaNotFound')))
  t.not(schemaOf(problemResponse('VagaNotFound')), schemaOf(problemResponse('ValidationFailed')))
  t.same(schemaOf(problemResponse('VagaNotFound', 'ValidationFailed')).properties.code.enum, ['VagaNotFound', 'ValidationFailed'])
})
