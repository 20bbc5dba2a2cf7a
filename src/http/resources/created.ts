// POST to a collection, with or without an Idempotency-Key: shared by every collection.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { StoredResponse } from '../../storage/idempotency-repository.ts'
import type { Repositories, ResourceRepositories } from '../../storage/repositories.ts'
import { problem } from '../problems/error-catalogue.ts'
import { httpDate } from '../conventions/http-date.ts'
import type { IsoTimestamp } from '../../domain/iso-timestamp.ts'
import { actorOf, fingerprint } from './common.ts'

/** The 201 answer for a new resource, as it is sent and, under an Idempotency-Key, stored. */
export function createdResponse (location: string, etag: string, lastModified: Date | IsoTimestamp, representation: unknown): StoredResponse {
  return {
    statusCode: 201,
    headers: { location, etag, 'last-modified': httpDate(lastModified) },
    body: JSON.stringify(representation)
  }
}

export interface CreateOptions {
  version: string
  /** The collection's version-less path (`/vagas`), part of the key's scope. */
  collection: string
  repositories: Repositories
  /** Creates the resource with the repositories given (those of the key's transaction under an Idempotency-Key). */
  create: (repositories: ResourceRepositories) => Promise<StoredResponse>
}

/**
 * Creates once. With an Idempotency-Key, once per caller, key and body: a retry with the same body
 * answers the first response again, byte for byte, with `Idempotent-Replayed: true`; another body
 * answers 422.
 */
export async function sendCreated (request: FastifyRequest, reply: FastifyReply, options: CreateOptions): Promise<FastifyReply> {
  const key = request.headers['idempotency-key']
  let response: StoredResponse
  if (typeof key !== 'string') {
    response = await options.create(options.repositories)
  } else {
    const outcome = await options.repositories.once(
      { scope: `${actorOf(request)} POST ${options.collection}`, key, fingerprint: fingerprint(options.version, request.body) },
      options.create)
    if (outcome.outcome === 'mismatch') {
      throw problem('IdempotencyKeyReused')
    }
    if (outcome.outcome === 'replayed') reply.header('idempotent-replayed', 'true')
    response = outcome.response
  }
  return reply.code(response.statusCode).headers(response.headers).type('application/json; charset=utf-8').send(response.body)
}
