import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ifNoneMatchHits } from '../http/conventions/conditional.ts'
import { httpDate } from '../http/conventions/http-date.ts'

interface SerializedDocument { body: Buffer, etag: string, lastModified: string }

export type SendDocument = (request: FastifyRequest, reply: FastifyReply) => FastifyReply

/**
 * Serves an OpenAPI document from the bytes serialized on its first request: the document is fixed
 * for the life of the process, so every answer (and every pipelined copy waiting to be sent) shares
 * one buffer. Its strong ETag lets clients revalidate with If-None-Match and get 304 without the body.
 */
export function serveDocument (build: () => unknown): SendDocument {
  let serialized: SerializedDocument | undefined
  const document = (): SerializedDocument => {
    if (serialized === undefined) {
      const body = Buffer.from(JSON.stringify(build()))
      const etag = `"${createHash('sha256').update(body).digest('base64url')}"`
      serialized = { body, etag, lastModified: httpDate(new Date()) }
    }
    return serialized
  }
  return (request, reply) => {
    const { body, etag, lastModified } = document()
    // Stored copies are checked with the ETag before use: a new release changes the document.
    reply.header('etag', etag).header('last-modified', lastModified).header('cache-control', 'no-cache')
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send()
    return reply.type('application/json; charset=utf-8').send(body)
  }
}
