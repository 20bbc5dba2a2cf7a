// The webhooks section's side of the receivers and of the database: starts the receivers
// (bench/webhook-receivers.ts) on the load generator's core, subscribes each to a service through
// its API, reads back when each event arrived, and reads and resets what the deliveries left in the
// database between runs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import pg from 'pg'
import { BATCH_QUEUE, DELIVERY_JOBS_TABLE, DELIVERY_QUEUE } from '../src/webhooks/queue-names.ts'
import { command, root, type Pinning, type Server } from './harness.ts'
import type { Arrivals, ReceiversMessage, ReceiversRequest } from './webhook-receivers.ts'

/** The receivers' path for bench/bare-sender.ts: answered like a subscription's, neither verified nor counted. */
export const BARE_PATH = '/bare'

export class Receivers {
  private readonly child: ChildProcess
  readonly origins: string[]

  private constructor (child: ChildProcess, origins: string[]) {
    this.child = child
    this.origins = origins
  }

  static async start (pinning: Pinning, count: number): Promise<Receivers> {
    const [file, argv] = command(pinning.load, [resolve(root, 'bench/webhook-receivers.ts'), String(count), BARE_PATH])
    const child = spawn(file, argv, { cwd: root, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    const message = await answer(child)
    if (message.type !== 'listening') throw new Error(`the receivers said ${message.type} before listening`)
    return new Receivers(child, message.origins)
  }

  private async ask<T extends ReceiversMessage['type']> (request: ReceiversRequest & { type: T }): Promise<Extract<ReceiversMessage, { type: T }>> {
    const answered = answer(this.child)
    this.child.send(request)
    const message = await answered
    if (message.type !== request.type) throw new Error(`the receivers answered ${message.type} to ${request.type}`)
    return message as Extract<ReceiversMessage, { type: T }>
  }

  async expect (secrets: Record<string, string>): Promise<void> {
    await this.ask({ type: 'subscribed', secrets })
  }

  /** Distinct events above the id `after` received by the given paths. */
  async received (paths: string[], after: number): Promise<number> {
    return (await this.ask({ type: 'count', paths, after })).received
  }

  async take (paths: string[]): Promise<Arrivals> {
    return (await this.ask({ type: 'take', paths })).arrivals
  }

  /**
   * Runs `work` with the receivers, every thread of theirs, on the servers' core, idle by then, so
   * the senders have the load generator's core to themselves; then moves them back. Unpinned, they
   * stay where they are.
   */
  async onServersCore<T> (pinning: Pinning, work: () => Promise<T>): Promise<T> {
    this.moveTo(pinning.server)
    try {
      return await work()
    } finally {
      this.moveTo(pinning.load)
    }
  }

  /** To the cores of a pinning prefix (`taskset -c <list>`). */
  private moveTo (prefix: string[]): void {
    const cores = prefix.at(-1)
    if (prefix[0] !== 'taskset' || cores === undefined || this.child.pid === undefined) return
    const moved = spawnSync('taskset', ['-a', '-p', '-c', cores, String(this.child.pid)])
    if (moved.status !== 0) throw new Error(`taskset could not move the receivers: ${moved.stderr.toString()}`)
  }

  close (): void {
    this.child.disconnect()
  }
}

/** The next message of the child, or its exit as an error. */
async function answer (child: ChildProcess): Promise<ReceiversMessage> {
  return await new Promise((resolve, reject) => {
    const exited = (code: number | null) => { reject(new Error(`the webhook receivers exited with code ${code}`)) }
    child.once('exit', exited)
    child.once('message', (message: ReceiversMessage) => {
      child.off('exit', exited)
      resolve(message)
    })
  })
}

export interface Subscribed { ids: string[], paths: string[] }

/** One subscription to every event type per receiver, through the service's API. */
export async function subscribe (service: Server, authorization: string, receivers: Receivers): Promise<Subscribed> {
  const subscribed: Subscribed = { ids: [], paths: [] }
  const secrets: Record<string, string> = {}
  for (const [i, origin] of receivers.origins.entries()) {
    const path = `/subscription-${i}`
    const response = await fetch(`${service.baseUrl}/api/v2/webhooks`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ url: origin + path })
    })
    const body = await response.json() as { id: string, segredo: string }
    if (response.status !== 201) throw new Error(`POST /api/v2/webhooks answered ${response.status}: ${JSON.stringify(body)}`)
    subscribed.ids.push(body.id)
    subscribed.paths.push(path)
    secrets[path] = body.segredo
  }
  await receivers.expect(secrets)
  return subscribed
}

async function withClient<T> (databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/**
 * Drops what the deliveries have not reached yet, so the next run starts with nothing queued: the
 * events no dispatch has numbered, the dispatch position moved past the rest, the queued batches and
 * deliveries (and the finished ones, so the queue is as small in every run). The dispatch, which numbers events, waits
 * meanwhile behind the lock on its position; deliveries under way finish.
 */
export async function skipBacklog (databaseUrl: string): Promise<void> {
  // The service's workers complete jobs meanwhile: a deadlock with them is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      await withClient(databaseUrl, async client => {
        await client.query('begin')
        try {
          await client.query('lock table webhook_despacho in exclusive mode')
          await client.query('delete from eventos where id is null')
          await client.query('update webhook_despacho set ate_evento = greatest(ate_evento, (select coalesce(max(id), 0) from eventos))')
          const { rows } = await client.query<{ queue: string | null }>('select to_regclass($1) as queue', [DELIVERY_JOBS_TABLE])
          // pg-boss makes its tables with the first subscription.
          if (rows[0]?.queue != null) await client.query(`delete from ${DELIVERY_JOBS_TABLE} where name = any($1) and state <> 'active'`, [[BATCH_QUEUE, DELIVERY_QUEUE]])
          await client.query('commit')
        } catch (error) {
          await client.query('rollback')
          throw error
        }
      })
      return
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error
    }
  }
}

/**
 * Whether a session of the service's is in a statement or a transaction: one of a process stopped
 * there (a statement waiting for a lock included) would hold its locks, the dispatch position's or
 * the events' numbering's, for good.
 */
export async function sessionBusy (databaseUrl: string): Promise<boolean> {
  return await withClient(databaseUrl, async client => {
    const { rows } = await client.query<{ busy: boolean }>(`select exists (select 1 from pg_stat_activity where datname = current_database()
      and application_name like 'recrutamento-api%' and state <> 'idle') as busy`)
    return rows[0]!.busy
  })
}

/**
 * Where the feed stands before a run: its events are the ones written after `ordem`, and any id they
 * get is above `id` (ids are given after commit, each above every id given before).
 */
export interface EventMark { ordem: number, id: number }

export async function eventMark (databaseUrl: string): Promise<EventMark> {
  return await withClient(databaseUrl, async client => {
    const { rows } = await client.query<EventMark>('select coalesce(max(ordem), 0)::float8 as ordem, coalesce(max(id), 0)::float8 as id from eventos')
    return rows[0]!
  })
}

export interface RunEvent {
  /** Its feed id; null while no dispatch has numbered it (then it cannot have been delivered). */
  id: number | null
  /** `em`, when its transaction began, in ms since the epoch. */
  at: number
}

export async function eventsAfter (databaseUrl: string, mark: EventMark): Promise<RunEvent[]> {
  return await withClient(databaseUrl, async client => {
    const { rows } = await client.query<RunEvent>('select id::float8 as id, extract(epoch from em)::float8 * 1000 as at from eventos where ordem > $1', [mark.ordem])
    return rows
  })
}

/** For each event after `mark` a batch took so far, and each of its batches: ms from the event's `em` to the batch's creation (the dispatch). */
export async function queuedAfter (databaseUrl: string, mark: EventMark): Promise<number[]> {
  return await withClient(databaseUrl, async client => {
    const { rows } = await client.query<{ ms: number }>(`select extract(epoch from j.created_on - e.em)::float8 * 1000 as ms
      from ${DELIVERY_JOBS_TABLE} j cross join lateral jsonb_array_elements_text(j.data->'eventIds') as taken(id)
      join eventos e on e.id = taken.id::bigint
      where j.name = $1 and e.ordem > $2`, [BATCH_QUEUE, mark.ordem])
    return rows.map(row => row.ms)
  })
}
