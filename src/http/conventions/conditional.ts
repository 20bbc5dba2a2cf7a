// Conditional requests (RFC 9110 section 13): validators out, preconditions in.

/** Entity tags of an If-Match or If-None-Match header: `*`, or the listed tags. */
function parseTags (header: string): '*' | string[] {
  const trimmed = header.trim()
  if (trimmed === '*') return '*'
  return trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []
}

/** If-Match: strong comparison, so a weak tag never matches (section 13.1.1). */
export function ifMatchHolds (header: string | undefined, etag: string): boolean {
  if (header === undefined) return true
  const tags = parseTags(header)
  return tags === '*' || tags.includes(etag)
}

/** The precondition a write runs under: none without If-Match, else the current ETag must match it. */
export function ifMatchPrecondition<T> (header: string | undefined, etagOf: (current: T) => string): ((current: T) => boolean) | undefined {
  return header === undefined ? undefined : current => ifMatchHolds(header, etagOf(current))
}

/** If-None-Match on a GET: true when the client's copy is current (weak comparison, section 13.1.2). */
export function ifNoneMatchHits (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const tags = parseTags(header)
  if (tags === '*') return true
  const opaque = etag.replace(/^W\//, '')
  return tags.some(tag => tag.replace(/^W\//, '') === opaque)
}

/** If-Modified-Since: true when nothing changed since that date, at the one-second grain of HTTP dates. */
export function notModifiedSince (header: string | undefined, lastModified: Date | string): boolean {
  if (header === undefined) return false
  const since = Date.parse(header)
  if (Number.isNaN(since)) return false
  const modified = typeof lastModified === 'string' ? Date.parse(lastModified) : lastModified.getTime()
  return Math.floor(modified / 1000) * 1000 <= since
}

/**
 * Whether a GET may answer 304. If-None-Match, when sent, decides alone; If-Modified-Since counts
 * only without it (section 13.2.2).
 */
export function isNotModified (headers: { 'if-none-match'?: string, 'if-modified-since'?: string }, etag: string, lastModified: Date | string): boolean {
  if (headers['if-none-match'] !== undefined) return ifNoneMatchHits(headers['if-none-match'], etag)
  return notModifiedSince(headers['if-modified-since'], lastModified)
}
