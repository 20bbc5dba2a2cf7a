// One attempt at one delivery of the retry queue: signed with the subscription's current secret,
// recorded whatever happens, and not done (so the queue retries it later) unless it succeeded or was
// the last.
import type { KeyObject } from 'node:crypto'
import type { WebhookDeliveriesRepository } from '../storage/webhook-deliveries-repository.ts'
import type { DeliveryHandler } from './delivery-queue.ts'
import { sendDelivery, type AttemptOutcome } from './send-delivery.ts'
import { signedHeaders } from './signature.ts'
import { signingKey } from './signing-secret.ts'

export interface DeliverySettings {
  timeoutMs: number
  allowPrivateTargets: boolean
  /** WEBHOOK_DISABLE_AFTER_SECONDS: a subscription failing for this long is disabled. */
  disableAfterSeconds: number
  /** Told of every attempt made, as it ends (the metrics count them). */
  onAttempt?: (outcome: AttemptOutcome) => void
}

/** Where a subscription's deliveries go, and the key that signs them. */
export interface SigningTarget { url: string, key: KeyObject }

export function signingTarget ({ url, secret }: { url: string, secret: string }): SigningTarget {
  return { url, key: signingKey(secret) }
}

/** One signed POST of `body` to the subscription's target. */
export async function sendSigned (target: SigningTarget, messageId: string, body: string, settings: DeliverySettings): Promise<AttemptOutcome> {
  const outcome = await sendDelivery({
    url: target.url,
    headers: { ...signedHeaders(target.key, messageId, Math.floor(Date.now() / 1000), body) },
    body,
    timeoutMs: settings.timeoutMs,
    allowPrivateTargets: settings.allowPrivateTargets
  })
  settings.onAttempt?.(outcome)
  return outcome
}

export function deliveryHandler (deliveries: WebhookDeliveriesRepository, settings: DeliverySettings): DeliveryHandler {
  return async (job, attempt) => {
    const target = await deliveries.target(job.webhookId)
    // Deleted or disabled since, or turned on again after it: nothing to send.
    if (target === undefined || job.eventId <= target.afterEvent) return
    const outcome = await sendSigned(signingTarget(target), job.messageId, job.body, settings)
    const { enabled, ...standing } = await deliveries.recordAttempts(job.webhookId, [{ eventId: job.eventId, messageId: job.messageId, number: attempt.number, outcome }], settings.disableAfterSeconds)
    if (!outcome.ok && enabled && !attempt.last) {
      return { ...standing, done: false, reason: `attempt ${attempt.number} failed: ${outcome.error ?? 'unknown'}`, ...(outcome.retryAfterSeconds !== undefined && { retryAfterSeconds: outcome.retryAfterSeconds }) }
    }
    return { ...standing, done: true }
  }
}
