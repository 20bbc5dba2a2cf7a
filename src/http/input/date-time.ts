// Date-times a client sends (the `date-time` format in any query, body or header schema): what the
// format takes, and how a handler reads it. Ajv's RFC 3339 check alone passed instants the service
// cannot use: a leap second (no JavaScript date holds one), and year 0 or past 9999 once in UTC
// (PostgreSQL refuses them: a 500 on every list's `atualizadoApos`).
import type { FastifyServerOptions } from 'fastify'
import { isStorableInstant } from '../../domain/iso-timestamp.ts'

type Ajv = Parameters<NonNullable<NonNullable<FastifyServerOptions['ajv']>['onCreate']>>[0]

/** What a refused date-time is told, in the `errors` entry naming its field. */
export const DATE_TIME_MESSAGE = 'must be an RFC 3339 date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z'

// The forms RFC 3339's format takes: `t` or a space for `T`, `z`, and offsets of `+01`, `+0100` or `+01:00`.
const RFC_3339 = /^(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d(?:\.\d+)?)(?:[Zz]|([+-]\d\d)(?::?(\d\d))?)$/

/**
 * The instant of a date-time the format has taken, or undefined for one it would refuse. It is
 * rewritten in the one form JavaScript parses by the standard first: the engine reads the others by
 * its own rules (`0001-01-01 00:00:00Z` as the year 2001).
 */
export function readDateTime (text: string): Date | undefined {
  const parts = RFC_3339.exec(text)
  if (parts === null) return undefined
  const [, date, time, offsetHours, offsetMinutes] = parts
  const instant = new Date(`${date}T${time}${offsetHours === undefined ? 'Z' : `${offsetHours}:${offsetMinutes ?? '00'}`}`)
  return Number.isNaN(instant.getTime()) || !isStorableInstant(instant) ? undefined : instant
}

interface FormatDefinition {
  validate: (value: string) => boolean
  compare?: (a: string, b: string) => number | undefined
}

/** Ajv's `date-time` narrowed to what readDateTime reads: set on every validator's Ajv (schema-compilers.ts). */
export function narrowDateTimeFormat (ajv: Ajv): void {
  const rfc3339 = ajv.formats['date-time'] as FormatDefinition | undefined
  if (typeof rfc3339?.validate !== 'function') throw new Error('Ajv has no date-time format to narrow')
  ajv.addFormat('date-time', { ...rfc3339, validate: (value: string) => rfc3339.validate(value) && readDateTime(value) !== undefined })
}
