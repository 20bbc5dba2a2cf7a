/**
 * How many times a header (lower-case name) appears in a request's raw header list: Node keeps only
 * the first of some repeated headers (Host, Authorization), so only the raw list shows a second one.
 */
export function headerCount (rawHeaders: readonly string[], name: string): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!
    if (header.length === name.length && header.toLowerCase() === name) count++
  }
  return count
}
