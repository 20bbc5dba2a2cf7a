/**
 * A moment as the API shows it: ISO 8601 in UTC with milliseconds, `2026-05-04T13:45:12.345Z`. Two
 * timestamps compare as their strings do.
 */
export type IsoTimestamp = string
