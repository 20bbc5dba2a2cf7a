import type { TSchema } from '@sinclair/typebox'

/**
 * The schema of a health route that answers the same body whatever the status: 200 while the
 * service can serve and 503 when it cannot (see httpStatusOf), so both codes document that body.
 */
export function healthRouteSchema<Result extends TSchema> (doc: { summary: string, description: string }, result: Result) {
  return { summary: doc.summary, description: doc.description, tags: ['health'], response: { 200: result, 503: result } }
}
