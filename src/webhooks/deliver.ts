// One attempt at one delivery: signed with the subscription's current secret, recorded whatever
// happens, and failed (so the queue retries it later) unless it succeeded or was the last.
import type { WebhookDeliveriesRepository } from '../storage/webhook-deliveries-repository.js'
import type { DeliveryHandler } from './delivery-queue.js'
import { sendDelivery } from './send-delivery.js'
import { signedHeaders } from './signature.js'

export interface DeliverySettings {
  timeoutMs: number
  allowPrivateTargets: boolean
  /** WEBHOOK_DISABLE_AFTER_SECONDS: a subscription failing for this long is disabled. */
  disableAfterSeconds: number
}

export class DeliveryFailedError extends Error {
  override name = 'DeliveryFailedError'
}

export function deliveryHandler (deliveries: WebhookDeliveriesRepository, settings: DeliverySettings): DeliveryHandler {
  return async (job, attempt) => {
    const target = await deliveries.target(job.webhookId)
    if (target === undefined) return // deleted or disabled since: nothing to send
    const timestamp = Math.floor(Date.now() / 1000)
    const outcome = await sendDelivery({
      url: target.url,
      headers: { ...signedHeaders(target.secret, job.messageId, timestamp, job.body) },
      body: job.body,
      timeoutMs: settings.timeoutMs,
      allowPrivateTargets: settings.allowPrivateTargets
    })
    const { enabled } = await deliveries.recordAttempt({
      webhookId: job.webhookId,
      eventId: job.eventId,
      messageId: job.messageId,
      number: attempt.number,
      outcome
    }, settings.disableAfterSeconds)
    if (!outcome.ok && enabled && !attempt.last) throw new DeliveryFailedError(`attempt ${attempt.number} failed: ${outcome.error ?? 'unknown'}`)
  }
}
