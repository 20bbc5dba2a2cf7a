// Whose webhook subscriptions a request reaches.
import type { FastifyRequest } from 'fastify'
import type { WebhookViewer } from '../../storage/webhooks-repository.ts'

/** Widens webhooks:write from the caller's own subscriptions to every one. */
export const WEBHOOKS_ADMIN_SCOPE = 'webhooks:admin'

/** Whose subscriptions the caller reaches: its own, or with webhooks:admin every one. */
export function webhookViewer (request: FastifyRequest): WebhookViewer {
  const principal = request.principal
  if (principal === undefined) throw new Error('the webhook routes require a token')
  return principal.scopes.has(WEBHOOKS_ADMIN_SCOPE) ? { every: true } : { owner: principal.actor }
}
