import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { exactJsonParser } from '../src/http/input/json-body.ts'

/** JSON bodies are taken exactly or refused: Fastify's parser, over strictly decoded UTF-8. */
async function jsonBody (fastify: FastifyInstance): Promise<void> {
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, exactJsonParser(fastify))
}

export default fp(jsonBody, { name: 'json-body', fastify: '5.x' })
