// What of each request may be resent, decided from its operation before the first attempt: a create
// whose operation takes an Idempotency-Key gets one (the caller's, or a new UUID) and keeps it across
// retries, so the service answers a resent create with the first one's answer instead of a second.
import type { Middleware } from 'openapi-fetch'
import { IDEMPOTENT_CREATES } from './generated/idempotent-creates.ts'
import { markResendable, type Resendable } from './retry.ts'

/** `/candidatos/{id}/aprovar`: a segment after a parameter names an action, not a resource. */
function isAction (schemaPath: string): boolean {
  return /\{[^/]+\}\/[^{/]+/.test(schemaPath)
}

function resendableOf (method: string, schemaPath: string): Resendable {
  if (['GET', 'HEAD', 'OPTIONS', 'PUT'].includes(method)) return 'any-failure'
  if (method === 'POST' && IDEMPOTENT_CREATES.has(schemaPath)) return 'any-failure'
  if (method === 'DELETE' && !isAction(schemaPath)) return 'any-failure'
  return 'nothing-done'
}

export const resendable: Middleware = {
  onRequest ({ request, schemaPath }) {
    if (request.method === 'POST' && IDEMPOTENT_CREATES.has(schemaPath) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID())
    }
    markResendable(request, resendableOf(request.method, schemaPath))
    return request
  }
}
