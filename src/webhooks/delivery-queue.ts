// The deliveries' job queue: pg-boss on the service's own database, so every instance shares the
// work, a restart loses nothing, and retries wait in the database rather than in a process.
import { sql, type Kysely, type Transaction } from 'kysely'
import { PgBoss, fromKysely, type JobResult, type JobWithMetadata } from 'pg-boss'
import type { Connection, DatabaseKind } from '../storage/database.ts'
import type { Schema } from '../storage/schema.ts'
import { BATCH_QUEUE, DELIVERY_JOBS_TABLE, DELIVERY_QUEUE, DELIVERY_QUEUE_SCHEMA } from './queue-names.ts'

// Sent side by side; a slow receiver holds only the deliveries fetched with its own, up to its timeout.
const DELIVERIES_PER_FETCH = 10
const JOBS = sql.table(DELIVERY_JOBS_TABLE)
// How many times in an attempt's limit the queue looks for attempts past it (their instance is gone).
const LOOKS_PER_LIMIT = 4
// A batch that fails (its attempts could not be recorded) is sent again until it is recorded; past
// this many tries it only queues its events (see unblockKeys).
const BATCH_RETRY_LIMIT = 100

export interface BatchJob {
  webhookId: string
  /** The subscription's events, in feed order. */
  eventIds: number[]
}

export interface DeliveryJob {
  webhookId: string
  eventId: number
  subjectId: string
  messageId: string
  /** The request body, fixed when the event was dispatched: every attempt sends the same bytes. */
  body: string
  /**
   * Its batch made its first attempt, which failed: it is queued as that attempt's retry, and the
   * job's own retry count does not include it.
   */
  batchAttempted?: true
  /** That first attempt's receiver asked to wait this many seconds (Retry-After); not stored with the job. */
  retryAfterSeconds?: number
}

export interface DeliveryQueueSettings {
  /** Per instance: batches, and deliveries, in flight at once. */
  workers: number
  /** Per subscription, across instances: retried deliveries in flight at once. */
  perSubscription: number
  pollingSeconds: number
  retryLimit: number
  retryDelaySeconds: number
  retryDelayMaxSeconds: number
  /** How long an attempt may stay active before the queue takes it for lost (a crashed instance). */
  expireSeconds: number
  /** The same for a batch. */
  batchExpireSeconds: number
  /** WEBHOOK_LISTEN_NOTIFY: workers listen for batches other processes queue (on PostgreSQL). */
  listen: boolean
  /**
   * A subscription failing without a success for this long has its deliveries worked by the failing
   * lane's workers alone (see Lane).
   */
  failingAfterSeconds: number
}

/**
 * Deliveries go by lanes, as pg-boss priorities: the failing lane holds those of subscriptions that
 * have failed for `failingAfterSeconds`, and a quarter of the workers (one at least) work it alone.
 * A dead receiver holds a worker for a whole timeout on every attempt: without lanes, twenty of them
 * kept every worker and a healthy subscription's due retries waited behind their backlogs.
 */
const HEALTHY_LANE = 0
export const FAILING_LANE = -1

/** How a subscription stands after an attempt, for the queue to choose its deliveries' lane. */
export interface SubscriptionStanding {
  /** How long it has failed without a success; null while it is not failing. */
  failingSeconds: number | null
  /** The attempt ended its run of failures. */
  recovered: boolean
}

/**
 * Sends a batch, queueing what it could not send as single deliveries. On its last try it sends
 * nothing and queues everything: a batch that keeps failing is given up, its events are not.
 */
export type BatchHandler = (job: BatchJob, queue: Pick<DeliveryQueue, 'addDeliveries' | 'heldSubjects'>, lastTry: boolean) => Promise<void>

/**
 * Runs one delivery attempt. `done: false` schedules the next one, as does throwing (the attempt could
 * not be made or recorded); nothing returned means done.
 */
export type DeliveryHandler = (job: DeliveryJob, attempt: { number: number, last: boolean }) => Promise<DeliveryOutcome | undefined>

export type DeliveryOutcome = SubscriptionStanding & ({ done: true } | { done: false, reason: string, retryAfterSeconds?: number })

export interface DeliveryQueue {
  /** Queues batches as part of the transaction that moves the dispatch position. */
  addBatches: (trx: Transaction<Schema>, batches: readonly BatchJob[]) => Promise<void>
  /** Queues single deliveries of one subscription, each behind those of its subject already queued. */
  addDeliveries: (trx: Transaction<Schema>, deliveries: readonly DeliveryJob[], standing: Pick<SubscriptionStanding, 'failingSeconds'>) => Promise<void>
  /** Of `subjectIds`, those with deliveries to the subscription queued or under way: their new events go behind them. */
  heldSubjects: (webhookId: string, subjectIds: readonly string[]) => Promise<Set<string>>
  /** Wakes this instance's workers now rather than at their next poll. */
  wake: () => void
  /** Reads the queue through its own connection pool; throws when it cannot. */
  reachable: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * Jobs queued by one statement share their creation time, and pg-boss takes those in id order: ids
 * that grow with the event id keep a key's jobs in event order. The same event and subscription
 * always give the same id, so a delivery (or a batch, by its last event) is never queued twice.
 */
export function deliveryJobId (eventId: number, webhookId: string): string {
  const hex = eventId.toString(16).padStart(16, '0') + webhookId.replaceAll('-', '').slice(0, 16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A subject's deliveries to a subscription go one at a time, in order, under this key. */
function deliveryKey (webhookId: string, subjectId: string): string {
  return `${webhookId}:${subjectId}`
}

async function ensureQueue (boss: PgBoss, name: string, notify: boolean): Promise<void> {
  let queue = await boss.getQueue(name)
  if (queue === null) {
    // Per key, one job at a time and in order, a job waiting for its retry holding back the later ones.
    await boss.createQueue(name, { policy: 'key_strict_fifo', notify }).catch(async (error: unknown) => {
      if (await boss.getQueue(name) === null) throw error // else another instance made it meanwhile
    })
    // Read again: another instance, perhaps of a release before, may have made it meanwhile.
    queue = await boss.getQueue(name)
  }
  if (notify && queue?.notify !== true) await boss.updateQueue(name, { notify })
}

/** The service's database, as the queue reaches it: its own statements through `db`, pg-boss's through a pool of its own. */
export interface QueueDatabase {
  db: Kysely<Schema>
  connection: Connection
  kind: DatabaseKind
}

/**
 * Creates pg-boss's tables when they are missing, then works the queues. Without handlers (a process
 * that serves the API only) it queues, and maintains the queue, but works nothing.
 */
export async function startDeliveryQueue ({ db, connection, kind }: QueueDatabase, settings: DeliveryQueueSettings, handlers: { batch: BatchHandler, delivery: DeliveryHandler } | undefined, onError: (error: Error) => void): Promise<DeliveryQueue> {
  // pg-boss looks once a minute by default: a crashed instance's deliveries, and their subjects' later
  // events behind them, would wait up to that long past the limit, whatever the limit.
  const superviseSeconds = Math.max(1, Math.ceil(settings.expireSeconds / LOOKS_PER_LIMIT))
  // The embedded database hands its notifications to the session that committed, not to a listener.
  const notifies = settings.listen && kind === 'postgres'
  // On a pool of its own: its maintenance sends several statements in one query and reads the rows of
  // each, which a connection of the service's Kysely does not return.
  const boss = new PgBoss({
    ...connection,
    application_name: 'recrutamento-api-deliveries',
    schema: DELIVERY_QUEUE_SCHEMA,
    schedule: false,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    // Deliveries come and go by the thousand: jobs past their retention are deleted on every pass,
    // not once a day as pg-boss's default would.
    maintenanceIntervalSeconds: superviseSeconds,
    // Workers wake when another process (an API process, say) queues a batch, not at their next
    // poll, which goes on as before.
    useListenNotify: notifies && handlers !== undefined
  })
  boss.on('error', onError)
  try {
    await boss.start()
    // Batches only: an API process queues them. Deliveries are queued by a worker, which wakes its own.
    await ensureQueue(boss, BATCH_QUEUE, notifies)
    await ensureQueue(boss, DELIVERY_QUEUE, false)
  } catch (error) {
    await boss.stop({ graceful: false }) // the next dispatch interval tries again from the start
    throw error
  }
  const retry = {
    // One spare retry, for an attempt whose instance died: the job still ends here, completed, since a
    // job of this queue that ends failed would hold back its key's later deliveries for good.
    retryLimit: settings.retryLimit + 1,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: settings.retryDelayMaxSeconds,
    expireInSeconds: settings.expireSeconds
  }

  const queue: DeliveryQueue = {
    async addBatches (trx, batches) {
      if (batches.length === 0) return
      await boss.insert(BATCH_QUEUE, batches.map(data => ({
        id: deliveryJobId(data.eventIds.at(-1)!, data.webhookId),
        data,
        // One batch of a subscription at a time, in order.
        singletonKey: data.webhookId,
        retryLimit: BATCH_RETRY_LIMIT,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: settings.retryDelayMaxSeconds,
        expireInSeconds: settings.batchExpireSeconds
      })), { db: fromKysely(trx) })
    },
    async addDeliveries (trx, deliveries, { failingSeconds }) {
      if (deliveries.length === 0) return
      const connection = { db: fromKysely(trx) }
      const priority = laneOf(failingSeconds)
      await boss.insert(DELIVERY_QUEUE, deliveries.map(({ retryAfterSeconds, ...data }) => ({
        id: deliveryJobId(data.eventId, data.webhookId),
        data,
        priority,
        singletonKey: deliveryKey(data.webhookId, data.subjectId),
        group: { id: data.webhookId },
        ...retry,
        ...(data.batchAttempted === true && { retryLimit: retry.retryLimit - 1 })
      })), connection)
      // Failed as its first attempt would have: waiting for its retry, it holds back its subject's
      // later deliveries, as a job merely deferred to then would not.
      const failed = deliveries.filter(delivery => delivery.batchAttempted === true)
      if (failed.length > 0) await boss.fail(DELIVERY_QUEUE, failed.map(({ eventId, webhookId }) => deliveryJobId(eventId, webhookId)), { message: 'its first attempt failed in its batch' }, connection)
      for (const { eventId, webhookId, retryAfterSeconds } of failed) {
        if (retryAfterSeconds !== undefined) await deferRetry(deliveryJobId(eventId, webhookId), retryAfterSeconds, connection)
      }
    },
    async heldSubjects (webhookId, subjectIds) {
      if (subjectIds.length === 0) return new Set()
      // Read from the queue itself, which knows what is live: pg-boss finds jobs by one key at a time only.
      const keys = subjectIds.map(subjectId => deliveryKey(webhookId, subjectId))
      const { rows } = await sql<{ key: string }>`select distinct singleton_key as key from ${JOBS}
        where name = ${DELIVERY_QUEUE} and singleton_key = any(${keys}::text[]) and state in ('created', 'retry', 'active')`.execute(db)
      return new Set(rows.map(row => row.key.slice(webhookId.length + 1)))
    },
    wake: () => {
      for (const worker of batchWorkers) boss.notifyWorker(worker)
      for (const worker of deliveryWorkers) boss.notifyWorker(worker)
    },
    reachable: async () => { await boss.getQueue(BATCH_QUEUE) },
    stop: async () => {
      clearInterval(supervision)
      await supervising
      await boss.stop({ graceful: true, timeout: settings.batchExpireSeconds * 1000 })
    }
  }

  // A receiver that answered 429 or 503 with Retry-After is not tried again before then (at most the
  // longest retry delay), nor sooner than the backoff pg-boss gave the retry when the attempt failed.
  // Deferred in place, in `retry` state, so its subject's later deliveries still wait behind it.
  async function deferRetry (id: string, seconds: number, connection?: { db: ReturnType<typeof fromKysely> }): Promise<void> {
    const wait = Math.min(seconds, settings.retryDelayMaxSeconds)
    const job = await boss.getJobById(DELIVERY_QUEUE, id, connection)
    // Read as text on some connections: a Date whatever it was.
    if (job?.state !== 'retry' || new Date(job.startAfter).getTime() >= Date.now() + wait * 1000) return
    await boss.update(DELIVERY_QUEUE, undefined, { id, startAfter: wait, ...connection })
  }

  // A job of these queues ends failed only when its last attempt did not end in time (its instance
  // stopped, or the queue took the attempt for lost) or, for a batch, when its last try could not
  // queue its events. Left failed, it would hold back its key's later jobs until pg-boss deletes it,
  // days later. A batch is run again: a batch past its last try only queues its events. A delivery
  // has had its spare attempt for a lost one: it is given up.
  async function unblockKeys (): Promise<void> {
    const { rows } = await sql<{ id: string, name: string }>`select id, name from ${JOBS}
      where name in (${BATCH_QUEUE}, ${DELIVERY_QUEUE}) and state = 'failed' and policy = 'key_strict_fifo' limit 1000`.execute(db)
    const ids = (name: string): string[] => rows.filter(row => row.name === name).map(row => row.id)
    const batches = ids(BATCH_QUEUE)
    const deliveries = ids(DELIVERY_QUEUE)
    if (batches.length > 0) {
      const { affected = 0 } = await boss.retry(BATCH_QUEUE, batches) as { affected?: number }
      if (affected > 0) onError(new Error(`${affected} batch(es) ended failed; run again to queue their events: ${batches.join(', ')}`))
    }
    if (deliveries.length > 0) {
      const { affected = 0 } = await boss.deleteJob(DELIVERY_QUEUE, deliveries) as { affected?: number }
      if (affected > 0) onError(new Error(`${affected} delivery(ies) lost their last attempt; given up: ${deliveries.join(', ')}`))
    }
  }

  // A retry waiting out its backoff holds back its subject's later deliveries. One of an event its
  // subscription no longer takes (turned off since, and on again: see webhooks-repository.ts) would
  // only be dropped when it runs, perhaps hours away: it is deleted now, and the subject goes on.
  async function dropUnwantedRetries (): Promise<void> {
    const { rows } = await sql<{ id: string }>`select j.id from ${JOBS} j
      join webhooks w on w.id::text = j.data->>'webhookId'
      where j.name = ${DELIVERY_QUEUE} and j.state = 'retry' and (j.data->>'eventId')::bigint <= w.desde_evento limit 1000`.execute(db)
    if (rows.length > 0) await boss.deleteJob(DELIVERY_QUEUE, rows.map(row => row.id))
  }

  // One pg-boss worker per slot rather than one with `localConcurrency`: pg-boss wakes only the first
  // worker of a `work` call, and a batch worker must be woken both when a dispatch queues batches and
  // when it finishes one (its subscription's next batch is likely waiting, and would wait a poll).
  const polling = { pollingIntervalSeconds: settings.pollingSeconds, notifyPollingIntervalSeconds: settings.pollingSeconds }
  const batchOptions = { ...polling, includeMetadata: true } as const
  const workers = handlers === undefined ? 0 : settings.workers
  const batchWorkers: string[] = []
  for (let slot = 0; slot < workers; slot++) {
    batchWorkers.push(await boss.work<BatchJob, unknown, typeof batchOptions>(BATCH_QUEUE, batchOptions, async ([job]) => {
      // Past its last try too, when it ended failed and was run again (unblockKeys).
      const lastTry = job!.retryCount >= BATCH_RETRY_LIMIT
      try {
        await handlers!.batch(job!.data, queue, lastTry)
      } finally {
        boss.notifyWorker(batchWorkers[slot]!)
      }
    }))
  }

  const laneOf = (failingSeconds: number | null): number => failingSeconds !== null && failingSeconds >= settings.failingAfterSeconds ? FAILING_LANE : HEALTHY_LANE

  // Moves a subscription's waiting deliveries to another lane: all of them once one attempt finds it
  // failing for long enough, or recovered. pg-boss's `update` reaches one job, or one key's jobs: a
  // subscription's deliveries have a key per subject, and no call reaches a group.
  async function moveToLane (webhookId: string, lane: number): Promise<void> {
    await sql`update ${JOBS} set priority = ${lane} where name = ${DELIVERY_QUEUE} and group_id = ${webhookId}
      and state in ('created', 'retry') and priority <> ${lane}`.execute(db)
  }

  const failingLaneWorkers = Math.max(1, Math.floor(settings.workers / 4))
  const options = {
    groupConcurrency: settings.perSubscription,
    ...polling,
    // A worker takes several deliveries per fetch and fetches again at once while they come full, so
    // a backlog drains at the receivers' pace rather than one delivery per worker per poll.
    batchSize: DELIVERIES_PER_FETCH,
    burstWhenBatchFull: true,
    perJobResults: true,
    includeMetadata: true
  } as const
  const work = async (jobs: Array<JobWithMetadata<DeliveryJob>>): Promise<JobResult[]> => await Promise.all(jobs.map(async (job): Promise<JobResult> => {
    const { result, lane, retryAfterSeconds } = await attempt(job)
    // Settled as soon as its own attempt ends, not with its batch: the next delivery of its subject
    // must not wait for a batch-mate's slow receiver. Settling the batch afterwards finds this attempt
    // settled and leaves it (pg-boss fences a settlement to the attempt it fetched).
    const fetched = { id: job.id, retryCount: job.retryCount }
    const settling = result.status === 'completed' ? boss.complete(DELIVERY_QUEUE, fetched) : boss.fail(DELIVERY_QUEUE, fetched, result.output)
    await settling.then(async response => {
      const { affected } = response as { affected?: number }
      // The queue took the attempt for lost meanwhile (past the attempt limit): it is sent again.
      if (affected === 0) onError(new Error(`delivery ${job.id}, attempt ${job.retryCount + 1}: the queue no longer held it when it ended; it is sent again`))
      else if (retryAfterSeconds !== undefined) await deferRetry(job.id, retryAfterSeconds).catch(onError)
    }, (error: Error) => { onError(new Error(`delivery ${job.id}: settling it at once failed, its batch settles it: ${error.message}`)) })
    // Once settled, so that a retry moves with the rest of its subscription's deliveries.
    if (lane !== undefined) await moveToLane(job.data.webhookId, lane).catch(onError)
    return result
  }))
  const healthyLane = { ...options, localConcurrency: Math.max(1, settings.workers - failingLaneWorkers), minPriority: HEALTHY_LANE }
  const failingLane = { ...options, localConcurrency: failingLaneWorkers, maxPriority: FAILING_LANE }
  const deliveryWorkers: string[] = []
  if (workers > 0) {
    deliveryWorkers.push(
      await boss.work<DeliveryJob, unknown, typeof healthyLane>(DELIVERY_QUEUE, healthyLane, work),
      await boss.work<DeliveryJob, unknown, typeof failingLane>(DELIVERY_QUEUE, failingLane, work)
    )
  }

  /** Runs the attempt; `lane` is where its subscription's deliveries go now, when they move. */
  async function attempt (job: JobWithMetadata<DeliveryJob>): Promise<{ result: JobResult, lane?: number, retryAfterSeconds?: number }> {
    // The job's own limit, one spare included (see addDeliveries): it was set when the job was queued,
    // perhaps by an instance with another WEBHOOK_RETRY_LIMIT. Failing it past that would end it failed.
    const last = job.retryCount >= job.retryLimit - 1
    try {
      const outcome = await handlers!.delivery(job.data, { number: job.retryCount + (job.data.batchAttempted === true ? 2 : 1), last })
      if (outcome === undefined) return { result: { id: job.id, status: 'completed' } }
      const lane = laneOf(outcome.failingSeconds)
      const moved = (outcome.recovered || lane !== job.priority) && { lane }
      if (outcome.done) return { result: { id: job.id, status: 'completed' }, ...moved }
      return { result: { id: job.id, status: 'failed', output: { message: outcome.reason } }, ...moved, retryAfterSeconds: outcome.retryAfterSeconds }
    } catch (error) {
      if (!last) return { result: { id: job.id, status: 'failed', output: { message: (error as Error).message } } }
      onError(error as Error)
    }
    return { result: { id: job.id, status: 'completed' } }
  }

  let supervising: Promise<void> | undefined
  const supervision = setInterval(() => {
    supervising ??= unblockKeys().then(dropUnwantedRetries).catch(onError).finally(() => { supervising = undefined })
  }, superviseSeconds * 1000)
  supervision.unref()

  return queue
}
