// Schema pieces every representation is made of, and the links it carries.
import { Type, type Static } from '@sinclair/typebox'

/** Ids are lower-case UUIDs; anything else in the path names no resource (404). */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
export const Id = Type.String({ pattern: UUID_PATTERN, description: 'A lower-case UUID', examples: ['0b7c1a5e-8f2d-4c3b-9a6e-1f2d3c4b5a69'] })

/** Text without NUL, which PostgreSQL cannot store. */
export const TEXT_PATTERN = '^[^\\u0000]*$'
export function Text (options: { minLength?: number, maxLength: number, description?: string, examples?: string[] }) {
  return Type.String({ pattern: TEXT_PATTERN, ...options })
}

/**
 * A closed set of strings as `enum` rather than TypeBox's union of literals: the serializer of every
 * response compiles an `anyOf` into a validator per branch, an `enum` into nothing.
 */
export function StringEnum<const T extends readonly string[]> (values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/** A string or null, as one `type` list for the same reason. */
export function NullableString (options: { pattern?: string, maxLength?: number, description?: string, examples?: string[] } = {}) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...options })
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, milliseconds', examples: ['2026-05-04T13:45:12.345Z'] })

export const LinkSchema = Type.Object({
  rel: Type.String({ description: '`self`, `edit`, a related resource, or an action name' }),
  href: Type.String({ description: 'The URI in the API version that served this representation' }),
  method: StringEnum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
}, { description: 'A hypermedia link: follow `href` with `method`' })
export type Link = Static<typeof LinkSchema>
export const Links = Type.Array(LinkSchema)
