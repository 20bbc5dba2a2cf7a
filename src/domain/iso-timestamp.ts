/**
 * A moment as the API shows it: ISO 8601 in UTC with milliseconds, `2026-05-04T13:45:12.345Z`. Two
 * timestamps compare as their strings do.
 */
export type IsoTimestamp = string

/**
 * Whether a date falls in the years 1 to 9999 (UTC): the form above has four digits for the year,
 * and PostgreSQL's timestamptz has no year 0 (nor can PGlite read one).
 */
export function isStorableInstant (date: Date): boolean {
  const year = date.getUTCFullYear()
  return year >= 1 && year <= 9999
}
