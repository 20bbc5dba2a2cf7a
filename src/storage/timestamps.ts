// Timestamps are read as the ISO 8601 strings the representations show (an IsoTimestamp): PostgreSQL's
// text goes straight into that form, with no Date built for each value and formatted back.
import pg from 'pg'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'

const parseDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)

/**
 * `2026-05-04 13:45:12.34+00` (what a session in UTC sends, trailing zeros of the fraction dropped)
 * becomes `2026-05-04T13:45:12.340Z` by moving characters; any other offset, era or form goes through
 * a Date. The columns keep milliseconds (timestamptz(3)).
 */
export function isoTimestampOf (text: string): IsoTimestamp {
  const length = text.length
  if (length >= 22 && length <= 29 && text[10] === ' ' && text.endsWith('+00') && (length === 22 || text[19] === '.')) {
    const milliseconds = length === 22 ? '000' : text.slice(20, length - 3).padEnd(3, '0').slice(0, 3)
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`
  }
  return new Date(parseDate(text) as Date | number).toISOString()
}

/** Every timestamptz this process reads arrives as an IsoTimestamp. */
export function readTimestampsAsIsoStrings (): void {
  pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, isoTimestampOf)
}
