import { API_VERSION_ROWS, type ApiVersionRow } from '../../src/versioning/versions.ts'

// Tests that add a version to the table take the next major after the highest row, so that a real
// row added to src/versioning/versions.ts never collides with an imaginary one.

/** The major after the highest of the rows: 3 for 1.0 and 2.0. */
export function nextMajor (rows: readonly ApiVersionRow[] = API_VERSION_ROWS): number {
  return Math.max(...rows.map(row => Number.parseInt(row.version, 10))) + 1
}

/** The next major version as the table writes it: `3.0`, with its `/api/v3` group. */
export function nextVersion (rows: readonly ApiVersionRow[] = API_VERSION_ROWS): { version: string, group: string, major: number } {
  const major = nextMajor(rows)
  return { version: `${major}.0`, group: `v${major}`, major }
}
