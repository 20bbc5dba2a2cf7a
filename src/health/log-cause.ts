/**
 * What may be logged about a dependency's failure: the error's name and code. Driver and network
 * messages carry host names, addresses and database names, which stay out of log lines.
 */
export function logCause (error: unknown): { error: string, code?: string } {
  if (typeof error !== 'object' || error === null) return { error: typeof error }
  const { name, code, cause } = error as { name?: unknown, code?: unknown, cause?: { code?: unknown } }
  const codeText = typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : undefined
  return { error: typeof name === 'string' ? name : 'Error', ...(codeText !== undefined && { code: codeText }) }
}
