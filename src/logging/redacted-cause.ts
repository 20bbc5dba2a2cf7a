/**
 * What may be logged about a dependency's failure: the error's name and code, and its message unless
 * it may name where the dependency is. Driver and network messages carry host names, addresses, users
 * and database names: a network error (it names its call and address) or a database server's own
 * error (it has a severity), or one caused by either, keeps its message out of log lines, and so does
 * any message that reads like an address or a credential. Any other error, a library's assertion say,
 * is logged with its message: without it nobody can tell what failed.
 */
export function logCause (error: unknown): { error: string, code?: string, message?: string } {
  if (typeof error !== 'object' || error === null) return { error: typeof error }
  const { name, code, cause, message } = error as { name?: unknown, code?: unknown, cause?: { code?: unknown }, message?: unknown }
  const codeText = typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : undefined
  return {
    error: typeof name === 'string' ? name : 'Error',
    ...(codeText !== undefined && { code: codeText }),
    ...(typeof message === 'string' && !mayNameTheDependency(error) && !NAMES_A_PLACE.test(message) && { message })
  }
}

// Network errors name their call and address, a database server's errors have a severity, and a URL
// that failed to parse is kept as its input.
// A URL, a user@host, a dotted name or address, or a word that introduces a secret.
const NAMES_A_PLACE = /:\/\/|@|\b[\w-]+\.[\w-]+\b|password|passwd|secret|token|credential/i

const CONNECTION_DETAILS = ['syscall', 'address', 'hostname', 'port', 'severity', 'input']

function mayNameTheDependency (error: object): boolean {
  for (let at: unknown = error, depth = 0; typeof at === 'object' && at !== null && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    if (CONNECTION_DETAILS.some(key => key in at)) return true
    if (at instanceof AggregateError && at.errors.some(inner => typeof inner === 'object' && inner !== null && mayNameTheDependency(inner))) return true
  }
  return false
}
