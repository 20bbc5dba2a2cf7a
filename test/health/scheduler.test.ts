import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { createScheduler } from '../../src/health/scheduler.js'
import { eventually } from '../support/eventually.js'

t.test('runs at once, then again after each run, never two runs at a time', async t => {
  let runs = 0
  let running = 0
  let mostAtOnce = 0
  // Each run outlasts the interval: a timer that ignored runs in progress would overlap them.
  const scheduler = createScheduler(async () => {
    runs++
    running++
    mostAtOnce = Math.max(mostAtOnce, running)
    await sleep(30) // a run slower than the interval: the behaviour under test
    running--
  }, 5)
  t.teardown(scheduler.stop)
  scheduler.start()
  t.equal(runs, 1, 'the first run starts at once')
  scheduler.start()
  t.equal(runs, 1, 'a second start adds no run')
  await eventually(() => { if (runs < 4) throw new Error(`${runs} runs`) })
  t.equal(mostAtOnce, 1, 'runs never overlapped')
})

t.test('a run that fails does not stop the next ones', async t => {
  let runs = 0
  const scheduler = createScheduler(async () => { runs++; throw new Error('check runner broke') }, 5)
  t.teardown(scheduler.stop)
  scheduler.start()
  await eventually(() => { if (runs < 3) throw new Error(`${runs} runs`) })
  t.pass('kept running')
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
  // Nothing may happen here: the wait is the behaviour under test (many intervals pass without a run).
  await sleep(50)
  t.equal(runs, 1, 'no run after stop')
})
