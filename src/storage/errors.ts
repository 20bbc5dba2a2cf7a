// Errors that mean the database cannot be reached right now, as opposed to a query that is wrong.
// ENOENT: the embedded database's socket is missing while its process restarts.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '53300'])

// A pooler in transaction mode (PgBouncer before 1.21) hands each transaction any server connection:
// a name prepared on one is missing on the next (26000) or prepared there already (42P05).
const PREPARED_STATEMENT_REFUSALS = new Set(['42P05', '26000'])

/**
 * A connection pooler refused a named statement (src/storage/prepared-statements.ts): the statement
 * did not run, and the next ones go unnamed.
 */
export function isPreparedStatementRefused (error: unknown): boolean {
  return PREPARED_STATEMENT_REFUSALS.has(sqlState(error) ?? '')
}

export function isDatabaseUnavailable (error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  // SQLSTATE class 08 is "connection exception".
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true
  if (isPreparedStatementRefused(error)) return true
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i.test(error.message)
}

function sqlState (error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** The database has no room left to write (SQLSTATE 53100, disk_full): the statement failed and its transaction is rolled back. */
export function isStorageFull (error: unknown): boolean {
  return sqlState(error) === '53100'
}

/** A unique index refused the row (SQLSTATE 23505), on the named constraint when one is given. */
export function isUniqueViolation (error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false
  return constraint === undefined || (error as { constraint?: string }).constraint === constraint || String((error as Error).message).includes(constraint)
}

/** A foreign key refused the change (SQLSTATE 23503). */
export function isForeignKeyViolation (error: unknown): boolean {
  return sqlState(error) === '23503'
}

/**
 * The database gave up on a statement at the deadline the service set it: statement_timeout
 * cancelled it (57014) or lock_timeout refused a lock (55P03). Its transaction is rolled back.
 */
export function isDatabaseDeadline (error: unknown): boolean {
  const code = sqlState(error)
  return code === '57014' || code === '55P03'
}
