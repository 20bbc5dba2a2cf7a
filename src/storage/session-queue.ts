import type { PGlite } from '@electric-sql/pglite'

interface Waiting {
  connection: number
  message: Uint8Array
  onData: (data: Uint8Array) => void
  resolve: (bytes: number) => void
  reject: (error: unknown) => void
}

const READY_FOR_QUERY = 0x5a // 'Z'
const IDLE = 0x49 // 'I': outside a transaction block

/**
 * Shares PGlite's one session among the socket server's client connections, one protocol message at
 * a time. A connection keeps the session from its first message until PGlite answers ReadyForQuery
 * with status idle: through an extended-protocol batch (Parse, Bind, Execute up to Sync, whose unnamed
 * statement another connection's Parse would replace) and through a whole transaction. The queue that
 * pglite-socket ships hands the session over between the messages of a batch (electric-sql/pglite#1046).
 *
 * It has the shape of pglite-socket's `QueryQueueManager`, which `PGLiteSocketHandler` takes as an option.
 */
export class SessionQueue {
  private readonly waiting: Waiting[] = []
  private holder: number | undefined
  private running: number | undefined
  private readonly closed = new Set<number>()
  private draining = false

  private readonly db: PGlite
  private readonly onFailure: (error: unknown) => void

  constructor (db: PGlite, onFailure: (error: unknown) => void) {
    this.db = db
    this.onFailure = onFailure
  }

  async enqueue (connection: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return await new Promise((resolve, reject) => {
      this.waiting.push({ connection, message, onData, resolve, reject })
      this.drain().catch(this.onFailure)
    })
  }

  clearQueueForHandler (connection: number): void {
    this.closed.add(connection)
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const entry = this.waiting[i] as Waiting
      if (entry.connection !== connection) continue
      this.waiting.splice(i, 1)
      entry.reject(new Error('connection closed'))
    }
  }

  /** A connection that goes away while holding the session gives it back, its open transaction rolled back. */
  async clearTransactionIfNeeded (connection: number): Promise<void> {
    if (this.running === connection) return // its message is running: drain() gives the session back after it
    this.closed.delete(connection)
    if (this.holder !== connection) return
    await this.rollBack()
    this.drain().catch(this.onFailure)
  }

  private async rollBack (): Promise<void> {
    if (this.db.isInTransaction()) await this.db.exec('rollback')
    this.holder = undefined
  }

  private next (): Waiting | undefined {
    const index = this.holder === undefined ? 0 : this.waiting.findIndex(entry => entry.connection === this.holder)
    return index === -1 ? undefined : this.waiting.splice(index, 1)[0]
  }

  private async drain (): Promise<void> {
    if (this.draining) return
    this.draining = true
    try {
      for (let entry = this.next(); entry !== undefined; entry = this.next()) {
        let bytes = 0
        let tail: Uint8Array = new Uint8Array(0)
        this.running = entry.connection
        try {
          await this.db.execProtocolRawStream(entry.message, {
            onRawData: data => {
              bytes += data.length
              tail = lastBytes(tail, data, 6)
              entry.onData(data)
            }
          })
        } catch (error) {
          // PGlite answers a failing statement with an ErrorResponse; a throw means the engine itself broke.
          entry.reject(error)
          this.onFailure(error)
          return
        } finally {
          this.running = undefined
        }
        this.holder = endsIdle(tail) ? undefined : entry.connection
        entry.resolve(bytes)
        if (this.closed.delete(entry.connection) && this.holder === entry.connection) await this.rollBack()
      }
    } finally {
      this.draining = false
    }
  }
}

function lastBytes (previous: Uint8Array, data: Uint8Array, count: number): Uint8Array {
  if (data.length >= count) return data.slice(data.length - count)
  const joined = new Uint8Array(previous.length + data.length)
  joined.set(previous)
  joined.set(data, previous.length)
  return joined.slice(Math.max(0, joined.length - count))
}

// ReadyForQuery is 'Z', length 5, status byte, and always the last message of an answer.
function endsIdle (tail: Uint8Array): boolean {
  return tail.length === 6 && tail[0] === READY_FOR_QUERY && tail[1] === 0 && tail[2] === 0 && tail[3] === 0 && tail[4] === 5 && tail[5] === IDLE
}
