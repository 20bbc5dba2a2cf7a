export interface RefusalLog {
  /** Counts one refused request under its problem code. */
  count: (code: string) => void
  /** Writes what is counted and stops the timer. */
  close: () => void
}

/**
 * Refused requests (503 problems: a dependency down, starting, overloaded, out of time) are counted
 * by code and written as one line per interval while they last, not one line (and stack) per request:
 * an outage under load must not bury the log. The timer runs only while there is something to write.
 */
export function createRefusalLog (log: { warn: (obj: object, msg: string) => void }, intervalMs: number): RefusalLog {
  let counts: Record<string, number> = {}
  let timer: NodeJS.Timeout | undefined

  function flush (): void {
    timer = undefined
    const refused = counts
    counts = {}
    if (Object.keys(refused).length > 0) log.warn({ refused, intervalMs }, 'requests refused')
  }

  return {
    count (code) {
      counts[code] = (counts[code] ?? 0) + 1
      if (timer === undefined) {
        timer = setTimeout(flush, intervalMs)
        timer.unref()
      }
    },
    close () {
      clearTimeout(timer)
      flush()
    }
  }
}
