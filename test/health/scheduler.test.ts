import t from 'tap'
import { mock } from 'node:test'
import { createScheduler } from '../../src/health/scheduler.ts'

// Time is the mock's: the tests move it with tick() and never wait on the clock.
mock.timers.enable({ apis: ['setTimeout'] })
t.teardown(() => { mock.timers.reset() })

/** Lets the promise callbacks queued so far run (a run's end schedules the next one from them). */
async function settle (): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

t.test('runs at once, then again after each run, never two runs at a time', async t => {
  let runs = 0
  let running = 0
  let mostAtOnce = 0
  let finishRun = (): void => {}
  const scheduler = createScheduler(async () => {
    runs++
    running++
    mostAtOnce = Math.max(mostAtOnce, running)
    await new Promise<void>(resolve => { finishRun = resolve })
    running--
  }, 5)
  t.teardown(scheduler.stop)
  scheduler.start()
  t.equal(runs, 1, 'the first run starts at once')
  scheduler.start()
  t.equal(runs, 1, 'a second start adds no run')
  for (let round = 1; round <= 3; round++) {
    // The run outlasts many intervals: a timer that ignored runs in progress would overlap them.
    mock.timers.tick(50)
    await settle()
    t.equal(runs, round, `no new run while run ${round} is in progress`)
    finishRun()
    await settle()
    mock.timers.tick(4)
    await settle()
    t.equal(runs, round, 'the next run waits the whole interval after the last one ended')
    mock.timers.tick(1)
    await settle()
    t.equal(runs, round + 1, 'then it starts')
  }
  t.equal(mostAtOnce, 1, 'runs never overlapped')
})

t.test('a run that fails does not stop the next ones', async t => {
  let runs = 0
  const scheduler = createScheduler(async () => { runs++; throw new Error('check runner broke') }, 5)
  t.teardown(scheduler.stop)
  scheduler.start()
  for (let i = 0; i < 3; i++) {
    await settle()
    mock.timers.tick(5)
  }
  t.equal(runs, 4, 'kept running')
})

t.test('after stop no run starts, not even when the run in progress ends', async t => {
  let runs = 0
  let finishRun = (): void => {}
  const scheduler = createScheduler(async () => {
    runs++
    await new Promise<void>(resolve => { finishRun = resolve })
  }, 1)
  scheduler.start()
  t.equal(runs, 1)
  scheduler.stop()
  finishRun()
  await settle()
  mock.timers.tick(100)
  await settle()
  t.equal(runs, 1, 'no run after stop, a hundred intervals later')
})
