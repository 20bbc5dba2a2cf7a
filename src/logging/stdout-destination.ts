import pino from 'pino'

// Far more than a healthy stdout ever holds back; past it lines are dropped, not kept.
const MAX_QUEUED_BYTES = 32 * 1024 * 1024
const DROP_REPORT_INTERVAL_MS = 1_000

type Destination = ReturnType<typeof pino.destination>

/**
 * pino's asynchronous destination for the log lines: writes never block the event loop, pino flushes
 * what is left when the process exits and stops logging if nobody reads stdout any more (EPIPE).
 * While stdout is slower than the service, at most `maxLength` bytes wait; the rest are dropped.
 */
export function logDestination (options: { dest?: number | string, maxLength?: number } = {}): Destination {
  const destination = pino.destination({ dest: options.dest ?? 1, sync: false, maxLength: options.maxLength ?? MAX_QUEUED_BYTES })
  destination.on('error', () => stopWriting(destination))
  return destination
}

const nothing = (): void => {}

/**
 * A write that failed for good (a full disk, a closed descriptor) stops the logging, never the
 * service: unhandled, the error would end the process, and the flush at exit would retry it. pino
 * treats a broken pipe the same way, by the same replacement of the stream's methods.
 */
function stopWriting (destination: Destination): void {
  Object.assign(destination, { write: () => true, end: nothing, flushSync: nothing, flush: nothing, destroy: nothing })
}

/** Counts the lines the destination dropped and reports them in one warning per interval while it lasts. */
export function reportDroppedLines (destination: Destination, log: { warn: (obj: object, msg: string) => void }, intervalMs = DROP_REPORT_INTERVAL_MS): void {
  let dropped = 0
  destination.on('drop', () => {
    if (dropped++ > 0) return
    setTimeout(() => {
      const count = dropped
      dropped = 0
      log.warn({ dropped: count }, 'log lines dropped: stdout did not keep up')
    }, intervalMs).unref()
  })
}
