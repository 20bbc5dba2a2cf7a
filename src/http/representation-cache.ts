import type { FastifyReply } from 'fastify'
import { createExpiringCache } from '../cache/expiring-cache.js'

const JSON_TYPE = 'application/json; charset=utf-8'

export type SendRepresentation = (reply: FastifyReply, id: string, etag: string, representation: () => unknown) => FastifyReply

/**
 * Sends single-resource representations, keeping the serialized body of each resource's current
 * representation with its strong ETag. A strong ETag names one exact representation (RFC 9110
 * section 8.8.1), so the kept body is the one the route would build and serialize again, for as long
 * as the resource (still read from the database on every request) has that ETag; a changed resource
 * replaces its entry. Bounded: when full, the oldest entry makes room.
 */
export function createRepresentationCache (maxEntries = 1000): SendRepresentation {
  const kept = createExpiringCache<{ etag: string, body: string }>(maxEntries)
  return (reply, id, etag, representation) => {
    const entry = kept.get(id)?.value
    let body = entry?.etag === etag ? entry.body : undefined
    if (body === undefined) {
      // The route's own serializer for its 200 (declared per media type), as if the representation had been returned.
      const serialize = reply.getSerializationFunction('200', 'application/json') ?? (payload => reply.serialize(payload) as string)
      body = serialize(representation() as Record<string, unknown>)
      kept.set(id, { etag, body }, Infinity)
    }
    return reply.type(JSON_TYPE).send(body)
  }
}
