// The deliveries' figures for /metrics: attempts by outcome, counted as they are made, and the
// queue's jobs by state with the age of the oldest due one, read from the database when scraped.
import { sql, type Kysely } from 'kysely'
import promClient from 'prom-client'
import type { Schema } from '../storage/schema.ts'
import { BATCH_QUEUE, DELIVERY_JOBS_TABLE, DELIVERY_QUEUE } from './queue-names.ts'
import type { AttemptOutcome } from './send-delivery.ts'

// A scrape waits this long for the queue's figures at most, and leaves them out past it.
const READ_TIMEOUT_MS = 1000
// Both gauges are filled from one read: a scrape reads once.
const READ_REUSE_MS = 1000
const QUEUES = [BATCH_QUEUE, DELIVERY_QUEUE]
// pg-boss's live states, as the metrics name them.
const STATES: Record<string, string> = { created: 'waiting', retry: 'retrying', active: 'active' }

interface QueueFigures {
  jobs: Array<{ queue: string, state: string, count: number }>
  oldestDue: Array<{ queue: string, seconds: number }>
}

/**
 * One statement. A job is due when its start time has passed and it heads its key (a subject's, or a
 * subscription's batches): one behind a waiting retry is not due until the retry is done.
 */
async function readFigures (db: Kysely<Schema>): Promise<QueueFigures | undefined> {
  return await db.transaction().execute(async trx => {
    await sql`set local statement_timeout = ${sql.lit(READ_TIMEOUT_MS)}`.execute(trx)
    const { rows: [exists] } = await sql<{ table: string | null }>`select to_regclass(${DELIVERY_JOBS_TABLE}) as table`.execute(trx)
    if (exists?.table === null) return undefined // no subscription was ever made: no queue yet
    const jobs = sql.table(DELIVERY_JOBS_TABLE)
    const { rows } = await sql<{ queue: string, state: string | null, count: number | null, oldest_due: number | null }>`with live as (
        select name, state, singleton_key, start_after, created_on, id from ${jobs}
        where name = any(${QUEUES}::text[]) and state in ('created', 'retry', 'active')
      ), heads as (
        select distinct on (name, singleton_key) name, state, start_after, created_on from live order by name, singleton_key, created_on, id
      )
      select name as queue, state::text as state, count(*)::int as count, null::float8 as oldest_due from live group by name, state
      union all
      select name, null, null, extract(epoch from now() - min(greatest(created_on, start_after)))::float8 from heads
      where state in ('created', 'retry') and start_after <= now() group by name`.execute(trx)
    return {
      jobs: rows.filter(row => row.state !== null).map(row => ({ queue: row.queue, state: STATES[row.state!] ?? row.state!, count: row.count ?? 0 })),
      oldestDue: rows.filter(row => row.state === null).map(row => ({ queue: row.queue, seconds: Math.max(0, row.oldest_due ?? 0) }))
    }
  })
}

/** Registers the figures; returns what counts each attempt. */
export function registerQueueMetrics (registry: promClient.Registry, db: Kysely<Schema>, onError: (error: Error) => void): (outcome: AttemptOutcome) => void {
  const attempts = new promClient.Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this instance, by outcome: success, or why it failed (timeout, connection, refused-target, redirect, status)',
    labelNames: ['outcome'],
    registers: [registry]
  })

  let reading: { at: number, figures: Promise<QueueFigures | undefined> } | undefined
  const figures = async (): Promise<QueueFigures | undefined> => {
    if (reading === undefined || Date.now() - reading.at > READ_REUSE_MS) {
      reading = { at: Date.now(), figures: readFigures(db).catch((error: Error) => { onError(error); return undefined }) }
    }
    return await reading.figures
  }
  registry.registerMetric(new promClient.Gauge({
    name: 'webhook_queue_jobs',
    help: 'Webhook jobs in the queue (webhook-batches: first attempts; webhook-deliveries: retries and what waits behind them), by state: waiting, retrying (waiting out a backoff), active',
    labelNames: ['queue', 'state'],
    registers: [],
    async collect () {
      this.reset()
      const read = await figures()
      if (read === undefined) return
      for (const queue of QUEUES) for (const state of Object.values(STATES)) this.set({ queue, state }, 0)
      for (const { queue, state, count } of read.jobs) this.set({ queue, state }, count)
    }
  }))
  registry.registerMetric(new promClient.Gauge({
    name: 'webhook_queue_oldest_due_seconds',
    help: 'How long the oldest due webhook job (its time come, nothing ahead of it for its subject) has waited for a worker, in seconds; 0 when none is due',
    labelNames: ['queue'],
    registers: [],
    async collect () {
      this.reset()
      const read = await figures()
      if (read === undefined) return
      for (const queue of QUEUES) this.set({ queue }, read.oldestDue.find(due => due.queue === queue)?.seconds ?? 0)
    }
  }))

  return outcome => { attempts.inc({ outcome: outcome.ok ? 'success' : outcome.error ?? 'status' }) }
}
