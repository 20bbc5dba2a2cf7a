// The typed client: `createClient(version, options)` for any API version, a named client per version
// (`createV2Client`, ...) and the operations' client. The versions, their types and named clients are
// generated from the service's version table (src/generated/versions.ts).
export { createClient, createOpsClient, type ApiClient, type ClientOptions } from './client.ts'
export { ApiProblemError, ApiRequestError, type Problem } from './errors.ts'
export { FEED_IDLE_MS, type FeedEntry, type FollowOptions } from './feed.ts'
export type { CollectionPath, ItemOf } from './paging.ts'
export { RETRY_DEFAULTS, callInfo, type CallInfo, type RetryOptions } from './retry.ts'
export { WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError, verifyWebhook, type Evento, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from './webhooks.ts'
export * from './generated/versions.ts'
