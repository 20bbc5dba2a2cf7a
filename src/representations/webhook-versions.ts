// Which API versions serve webhook subscriptions: the one place that says so.
import { versionedResource } from '../versioning/profiles.ts'

export interface WebhookProfile {
  /** Whether the version serves `/webhooks`. */
  served: boolean
}

/** Webhooks came with 2.0, beside the event feed whose events they deliver; later versions keep them. */
export const webhookVersions = versionedResource<WebhookProfile>('webhooks', { served: false }, { '2.0': { served: true } })
