import type { Redis } from 'ioredis'
import { RevokedIds, type DenyList } from './deny-list.ts'
import { TokenCheckUnavailableError } from './errors.ts'

// One sorted set: member the jti, score the token's exp (seconds). A full load is one range read of
// the entries not yet expired, and expired ones are dropped by score.
const KEY = 'revoked-jtis'

export interface ReplicaState {
  /** Loaded from Redis at least once: until then no token with a jti can be checked. */
  loaded: boolean
  /** Follows Redis right now: subscribed to changes and loaded since. */
  live: boolean
  /** Milliseconds since the replica last matched Redis (0 while live); absent before the first load. */
  ageMs?: number
  revoked: number
  /** Revocations made here that Redis has not received yet. */
  unsent: number
}

export interface ReplicatedDenyListOptions {
  /** The shared client, for reads and writes. */
  redis: Redis
  /** A connection of its own for pub/sub: a subscribed connection can send nothing else. */
  subscriber: Redis
  /** The pub/sub channel (channels are not keys, so they carry no key prefix of their own). */
  channel: string
  /** Told when a load or a write fails while Redis looked reachable. */
  onSyncError?: (error: unknown) => void
}

interface Revocation { jti: string, expiresAt: number }

function parseRevocation (message: string): Revocation | undefined {
  try {
    const value = JSON.parse(message) as Partial<Revocation> | null
    if (typeof value?.jti === 'string' && typeof value.expiresAt === 'number') return { jti: value.jti, expiresAt: value.expiresAt }
  } catch {}
  return undefined
}

/**
 * The deny list shared by every instance through Redis, read from a replica in this process: a check
 * is a local lookup and never waits on Redis. The replica is loaded whenever a connection to Redis is
 * (re)established, kept current by pub/sub, and reloaded on demand (`sync`). While Redis is away it
 * serves what it last had; a revocation made meanwhile applies here at once and is sent on return.
 * Entries are never withdrawn, only expire, so a load merges into the replica and cannot race an update.
 */
export class ReplicatedDenyList implements DenyList {
  readonly kind = 'redis'
  readonly #redis: Redis
  readonly #subscriber: Redis
  readonly #channel: string
  readonly #onSyncError: (error: unknown) => void
  readonly #ids = new RevokedIds()
  readonly #unsent = new Map<string, number>()
  #loaded = false
  #subscribed = false
  #live = false
  /** Epoch ms when the replica last matched Redis. */
  #currentAt = 0
  #inFlight?: Promise<void>
  #queued?: Promise<void>

  constructor (options: ReplicatedDenyListOptions) {
    this.#redis = options.redis
    this.#subscriber = options.subscriber
    this.#channel = options.channel
    this.#onSyncError = options.onSyncError ?? (() => {})

    this.#subscriber.on('message', (channel: string, message: string) => {
      const revocation = channel === this.#channel ? parseRevocation(message) : undefined
      if (revocation !== undefined) this.#ids.add(revocation.jti, revocation.expiresAt)
    })
    this.#subscriber.on('ready', () => { this.#subscribe().catch(this.#onSyncError) })
    this.#subscriber.on('close', () => {
      this.#subscribed = false
      this.#markStale()
    })
    this.#redis.on('ready', () => { this.#syncQuietly() })
    this.#redis.on('close', () => this.#markStale())
  }

  async isRevoked (jti: string): Promise<boolean> {
    // Fail closed: before the first load a revoked token cannot be told from a good one.
    if (!this.#loaded) throw new TokenCheckUnavailableError('the revocation list has not been loaded yet')
    return this.#ids.has(jti)
  }

  async revoke (jti: string, expiresAt: number): Promise<void> {
    this.#ids.forgetExpired()
    this.#ids.add(jti, expiresAt)
    this.#unsent.set(jti, expiresAt)
    try {
      await this.#send()
    } catch {
      // Kept in #unsent: sent with the next load, when Redis is back.
    }
  }

  /** Sends what Redis has not received, then loads the whole list. Loads run one at a time. */
  sync (): Promise<void> {
    if (this.#inFlight === undefined) {
      this.#inFlight = this.#load().finally(() => { this.#inFlight = undefined })
      return this.#inFlight
    }
    // A load already running may have started before the latest change of connection: run one more.
    this.#queued ??= this.#inFlight.catch(() => {}).then(() => {
      this.#queued = undefined
      return this.sync()
    })
    return this.#queued
  }

  state (now = Date.now()): ReplicaState {
    return {
      loaded: this.#loaded,
      live: this.#live,
      ageMs: this.#loaded ? (this.#live ? 0 : Math.max(0, now - this.#currentAt)) : undefined,
      revoked: this.#ids.size,
      unsent: this.#unsent.size
    }
  }

  async #subscribe (): Promise<void> {
    await this.#subscriber.subscribe(this.#channel)
    this.#subscribed = true
    // Changes published while the subscription was down were missed: load the whole list.
    this.#syncQuietly()
  }

  #syncQuietly (): void {
    this.sync().catch(error => {
      if (this.#redis.status === 'ready') this.#onSyncError(error)
    })
  }

  async #load (): Promise<void> {
    const subscribed = this.#subscribed
    await this.#send()
    const now = Math.floor(Date.now() / 1000)
    const flat = await this.#redis.zrangebyscore(KEY, `(${now}`, '+inf', 'WITHSCORES')
    this.#ids.forgetExpired()
    for (let i = 0; i + 1 < flat.length; i += 2) this.#ids.add(flat[i], Number(flat[i + 1]))
    this.#loaded = true
    this.#currentAt = Date.now()
    // Live only if no published change can have slipped between the subscription and this read.
    this.#live = subscribed && this.#subscribed
  }

  async #send (): Promise<void> {
    const now = Math.floor(Date.now() / 1000)
    // A token that expired while Redis was away needs no entry any more.
    for (const [jti, expiresAt] of this.#unsent) if (expiresAt <= now) this.#unsent.delete(jti)
    if (this.#unsent.size === 0) return
    const batch = [...this.#unsent]
    const transaction = this.#redis.multi().zremrangebyscore(KEY, '-inf', now)
    for (const [jti, expiresAt] of batch) {
      transaction.zadd(KEY, 'GT', expiresAt, jti).publish(this.#channel, JSON.stringify({ jti, expiresAt }))
    }
    const results = await transaction.exec()
    // A transaction answers each command's error inside its result instead of rejecting.
    const failure = results?.find(([error]) => error !== null)
    if (failure !== undefined) throw failure[0]
    for (const [jti, expiresAt] of batch) if (this.#unsent.get(jti) === expiresAt) this.#unsent.delete(jti)
  }

  #markStale (): void {
    if (!this.#live) return
    this.#live = false
    this.#currentAt = Date.now()
  }
}
