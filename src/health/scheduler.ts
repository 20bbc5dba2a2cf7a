/**
 * Runs `work` at once, then again `intervalMs` after each run has finished, so runs never overlap and
 * a slow round delays the next instead of piling up. The timer does not keep the process alive.
 */
export interface Scheduler {
  start: () => void
  /** No run starts after this; a run in progress finishes on its own. */
  stop: () => void
}

export function createScheduler (work: () => Promise<void>, intervalMs: number): Scheduler {
  let stopped = false
  let started = false
  let timer: NodeJS.Timeout | undefined

  function run (): void {
    if (stopped) return
    work().catch(() => {}).finally(() => {
      if (stopped) return
      timer = setTimeout(run, intervalMs)
      timer.unref()
    }).catch(() => {})
  }

  return {
    start () {
      if (started) return
      started = true
      run()
    },
    stop () {
      stopped = true
      clearTimeout(timer)
    }
  }
}
