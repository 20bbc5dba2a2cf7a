// How long one delivery attempt can take. An attempt still active past it has lost its instance (a
// crash, a kill), and the queue gives the delivery to another: the sooner, the less a subject's later
// events wait behind it.

// An attempt's database statements: its subscription's target, its record, and its job's completion.
const ATTEMPT_STATEMENTS = 3
// A batch's: its target, its events' bodies, its held subjects, and the transaction that records its
// attempts and queues the rest (four).
const BATCH_STATEMENTS = 7
// What an attempt's database work is given when a statement may take any time.
const UNBOUNDED_DATABASE_WORK_SECONDS = 30
// For the instance's own pauses (garbage collection, a busy event loop) on top of every deadline.
const SLACK_SECONDS = 1

export interface AttemptDeadlines {
  /** WEBHOOK_TIMEOUT_MS: the receiver's time to answer. */
  timeoutMs: number
  /** DATABASE_POOL_TIMEOUT_MS: a statement's wait for a pooled connection. */
  poolTimeoutMs: number
  /** A statement's own deadline; 0 when there is none. */
  statementDeadlineMs: number
}

function limitSeconds (sendingMs: number, statements: number, { poolTimeoutMs, statementDeadlineMs }: AttemptDeadlines): number {
  const databaseMs = statementDeadlineMs > 0 ? statements * (poolTimeoutMs + statementDeadlineMs) : UNBOUNDED_DATABASE_WORK_SECONDS * 1000
  return Math.ceil((sendingMs + databaseMs) / 1000) + SLACK_SECONDS
}

/** In whole seconds, as the queue counts them: the receiver's timeout, then each statement's wait and deadline. */
export function attemptLimitSeconds (deadlines: AttemptDeadlines): number {
  return limitSeconds(deadlines.timeoutMs, ATTEMPT_STATEMENTS, deadlines)
}

/** The same for a batch, which starts sends for up to one timeout, each taking up to another. */
export function batchLimitSeconds (deadlines: AttemptDeadlines): number {
  return limitSeconds(2 * deadlines.timeoutMs, BATCH_STATEMENTS, deadlines)
}
