// Formatting a date costs more than reading the clock, so the HTTP date is made once a second.
let cachedSecond = -1
let cachedValue = ''

/** The current time as an IMF-fixdate (RFC 9110 section 5.6.7). */
export function httpDateNow (): string {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== cachedSecond) {
    cachedSecond = second
    cachedValue = new Date(second * 1000).toUTCString()
  }
  return cachedValue
}

/** A Date, or an IsoTimestamp (an ISO 8601 string), as an IMF-fixdate. */
export function httpDate (date: Date | string): string {
  return (typeof date === 'string' ? new Date(date) : date).toUTCString()
}
