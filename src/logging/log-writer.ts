import { write, writeSync } from 'node:fs'

const RETRY_BUSY_MS = 10
// Something to wait on for a moment where there is no event loop (flushSync at exit).
const PAUSE = new Int32Array(new SharedArrayBuffer(4))
// Far more than a healthy stdout ever holds back; past it lines are counted, not kept.
const DEFAULT_MAX_PENDING_BYTES = 32 * 1024 * 1024

export interface LogWriterOptions {
  /** Lines (in UTF-16 code units) held while stdout is slower than the service; past it they are dropped and counted. */
  maxPendingBytes?: number
}

/**
 * pino's destination for the service's log lines: asynchronous, and each write takes every line
 * that arrived while the previous one was in flight. pino's own writer (sonic-boom) writes in small
 * chunks and measures the UTF-8 length of its whole open batch for every line it adds: on
 * a saturated instance it falls behind, and its per-line cost grows with the batch (docs/benchmarks.md,
 * "Costs behind the code"). If stdout cannot keep up at all, at most `maxPendingBytes` wait in memory
 * and the rest are dropped, then reported in one line of their own.
 */
export class LogWriter {
  readonly #fd: number
  readonly #maxPending: number
  #pending: string[] = []
  #pendingSize = 0
  #dropped = 0
  #writing = false
  #closed = false
  #drained: Array<() => void> = []

  constructor (fd: number, options: LogWriterOptions = {}) {
    this.#fd = fd
    this.#maxPending = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES
  }

  write (line: string): boolean {
    if (this.#closed) return false
    if (this.#pendingSize + line.length > this.#maxPending) {
      this.#dropped++
      return false
    }
    this.#pending.push(line)
    this.#pendingSize += line.length
    if (!this.#writing) this.#writeNext()
    return true
  }

  /** Calls back once every line written so far has reached the file descriptor (pino's `logger.flush`). */
  flush (callback: (error?: Error) => void = () => {}): void {
    if (!this.#writing) callback()
    else this.#drained.push(callback)
  }

  /** Writes the waiting lines synchronously: for the moment the process exits and has no event loop left. */
  flushSync (): void {
    if (this.#closed) return
    const chunk = this.#takePending()
    let offset = 0
    while (offset < chunk.length) {
      try {
        offset += writeSync(this.#fd, chunk, offset)
      } catch (error) {
        if (!isBusy(error)) return
        Atomics.wait(PAUSE, 0, 0, RETRY_BUSY_MS)
      }
    }
  }

  #takePending (): Buffer {
    if (this.#dropped > 0) {
      this.#pending.push(JSON.stringify({ level: 40, time: Date.now(), msg: 'log lines dropped: stdout did not keep up', dropped: this.#dropped }) + '\n')
      this.#dropped = 0
    }
    const chunk = Buffer.from(this.#pending.join(''))
    this.#pending = []
    this.#pendingSize = 0
    return chunk
  }

  #writeNext (): void {
    this.#writing = true
    this.#writeChunk(this.#takePending())
  }

  #writeChunk (chunk: Buffer): void {
    write(this.#fd, chunk, 0, chunk.length, null, (error, written) => {
      if (error !== null) {
        // A non-blocking stdout whose reader is behind: try the same bytes again shortly.
        if (isBusy(error)) { setTimeout(() => this.#writeChunk(chunk), RETRY_BUSY_MS); return }
        // Nobody reads stdout any more (EPIPE, EBADF): there is nowhere left to log to.
        this.#closed = true
        this.#pending = []
        this.#settle()
        return
      }
      if (written < chunk.length) { this.#writeChunk(chunk.subarray(written)); return }
      if (this.#pending.length > 0 || this.#dropped > 0) this.#writeNext()
      else this.#settle()
    })
  }

  #settle (): void {
    this.#writing = false
    const waiting = this.#drained
    this.#drained = []
    for (const callback of waiting) callback()
  }
}

function isBusy (error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return code === 'EAGAIN' || code === 'EBUSY'
}
