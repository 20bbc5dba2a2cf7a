/**
 * Where the database is, for log lines: `host:port/database` of DATABASE_URL (a socket directory
 * when `host` is one), or the embedded database's directory. Never the user or the password.
 */
export function databaseTarget (url: string | undefined, dataDir: string): string {
  if (url === undefined) return `embedded database in ${dataDir}`
  try {
    const parsed = new URL(url)
    const host = parsed.searchParams.get('host') ?? (parsed.hostname === '' ? 'localhost' : parsed.hostname)
    return `${host}:${parsed.port === '' ? '5432' : parsed.port}${parsed.pathname}`
  } catch {
    return 'the database of DATABASE_URL'
  }
}
