// The deliveries' queues, named apart from the queue's code so that what reads their figures does
// not load pg-boss in a service without subscriptions.

/** Each subscription's new events, a batch at a time and in order (see deliver-batch.ts). */
export const BATCH_QUEUE = 'webhook-batches'
/** Single deliveries: a failed one's retries, and the events of its subject queued behind it. */
export const DELIVERY_QUEUE = 'webhook-deliveries'
/** pg-boss's own tables, beside the service's. */
export const DELIVERY_QUEUE_SCHEMA = 'webhook_jobs'
/** Their jobs, read directly where pg-boss has no call for the question. */
export const DELIVERY_JOBS_TABLE = `${DELIVERY_QUEUE_SCHEMA}.job`
