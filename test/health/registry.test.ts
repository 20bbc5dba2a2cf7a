import t from 'tap'
import assert from 'node:assert/strict'
import { createHealthRegistry } from '../../src/health/registry.ts'
import { httpStatusOf, worstOf } from '../../src/health/status.ts'
import { eventually } from '../support/eventually.ts'

const quiet = { warn: () => {}, info: () => {} }

t.test('worst wins in the documented order; Healthy and Degraded are 200, the rest 503', async t => {
  t.equal(worstOf([]), 'Healthy')
  t.equal(worstOf(['Healthy', 'Degraded']), 'Degraded')
  t.equal(worstOf(['Degraded', 'Unknown']), 'Unknown')
  t.equal(worstOf(['Unknown', 'Starting']), 'Starting')
  t.equal(worstOf(['Starting', 'NotReady']), 'NotReady')
  t.equal(worstOf(['NotReady', 'Timeout']), 'Timeout')
  t.equal(worstOf(['Timeout', 'Unhealthy', 'Healthy']), 'Unhealthy')
  t.same(['Healthy', 'Degraded', 'Unhealthy', 'Unknown', 'Starting', 'NotReady', 'Timeout'].map(s => httpStatusOf(s as never)), [200, 200, 503, 503, 503, 503, 503])
})

t.test('a check that throws is Unhealthy and its error is logged, not returned', async t => {
  const logged: unknown[] = []
  const registry = createHealthRegistry({ timeout: 500, cacheTtl: 0 }, { warn: obj => logged.push(obj), info: obj => logged.push(obj) })
  registry.register('broken', () => { throw Object.assign(new Error('password=hunter2 at db.internal'), { code: 'ECONNREFUSED' }) })
  const result = await registry.run('broken')
  t.equal(result.status, 'Unhealthy')
  t.notMatch(JSON.stringify(result), /hunter2|db\.internal/)
  t.same(logged, [{ check: 'broken', status: 'Unhealthy', error: 'Error', code: 'ECONNREFUSED' }], 'the log names the cause, not the message')
  t.type(result.latencyMs, 'number')
})

t.test('a check that hangs is reported Timeout within its limit, and its signal aborts', async t => {
  // The registry's own limit is far from the check's: a check cut by the wrong limit fails the bound
  // below by tens of seconds, while a busy machine may still fire the 150 ms timer late.
  const registry = createHealthRegistry({ timeout: 60_000, cacheTtl: 0 }, quiet)
  let aborted = false
  registry.register('hangs', signal => new Promise(() => { signal.addEventListener('abort', () => { aborted = true }) }), { timeout: 150 })
  const started = Date.now()
  const result = await registry.run('hangs')
  const elapsed = Date.now() - started
  t.equal(result.status, 'Timeout')
  t.ok(elapsed >= 140 && elapsed < 10_000, `answered after ${elapsed} ms`)
  t.ok(aborted, 'the check was told to stop')
})

t.test('concurrent callers share one run, and a result is reused while younger than cacheTtl', async t => {
  const registry = createHealthRegistry({ timeout: 1000, cacheTtl: 0 }, quiet)
  let runs = 0
  let finishRun = (): void => {}
  // The first run lasts until the test lets it finish: every caller below arrives while it is in flight.
  registry.register('heavy', async () => {
    runs++
    if (runs === 1) await new Promise<void>(resolve => { finishRun = resolve })
  }, { cacheTtl: 1000 })
  const callers = Promise.all(Array.from({ length: 100 }, () => registry.run('heavy')))
  await eventually(() => { assert.equal(runs, 1, 'the first run started') })
  finishRun()
  const results = await callers
  t.equal(runs, 1, 'one run for 100 concurrent callers')
  t.ok(results.every(r => r.status === 'Healthy'))
  await registry.run('heavy')
  t.equal(runs, 1, 'reused inside the TTL')
  await eventually(async () => { await registry.run('heavy'); assert.equal(runs, 2) })
  t.ok(Date.now() - results[0].checkedAt >= 1000, 'run again once the TTL passed, not before')
})

t.test('a run anew ignores the kept result and a run begun before it: it sees the state after the call', async t => {
  const registry = createHealthRegistry({ timeout: 1000, cacheTtl: 60_000 }, quiet)
  let ready = false
  let runs = 0
  let active = 0
  let mostAtOnce = 0
  let finishRun = (): void => {}
  registry.register('storage', async () => {
    runs++
    mostAtOnce = Math.max(mostAtOnce, ++active)
    const saw = ready
    if (runs === 2) await new Promise<void>(resolve => { finishRun = resolve })
    active--
    return saw ? 'Healthy' : 'NotReady'
  })
  t.equal((await registry.run('storage')).status, 'NotReady', 'the first result')
  t.equal((await registry.run('storage')).status, 'NotReady', 'kept for the TTL')
  // A run begins, reading the state before the change; the change comes while it is in flight.
  const before = registry.run('storage', { anew: true })
  await eventually(() => { assert.equal(runs, 2) })
  ready = true
  const after = [registry.run('storage', { anew: true }), registry.run('storage', { anew: true })]
  // A run begins synchronously: a third one begun at the call would be counted here already.
  t.equal(runs, 2, 'the later runs wait for the one in flight')
  finishRun()
  t.equal((await before).status, 'NotReady', 'the run begun before the change says what it saw')
  t.same((await Promise.all(after)).map(result => result.status), ['Healthy', 'Healthy'], 'a run asked for anew after the change sees it')
  t.equal(runs, 3, 'callers waiting on the same run share one new run')
  t.equal(mostAtOnce, 1, 'never two runs at once')
  t.equal((await registry.run('storage')).status, 'Healthy', 'and its result is the one kept')
})

t.test('a failing non-critical check weighs as Degraded; details are kept', async t => {
  const registry = createHealthRegistry({ timeout: 1000, cacheTtl: 0 }, quiet)
  registry.register('cache', () => ({ status: 'Unhealthy', details: { kind: 'redis' } }), { critical: false, tags: ['ready'] })
  const result = await registry.run('cache')
  t.equal(result.status, 'Unhealthy')
  t.equal(result.effectiveStatus, 'Degraded')
  t.same(result.details, { kind: 'redis' })
  t.same(registry.names('ready'), ['cache'])
  t.same(registry.names('deep'), [])
})

t.test('names are checked and unique', async t => {
  const registry = createHealthRegistry({ timeout: 1000, cacheTtl: 0 }, quiet)
  registry.register('database', () => 'Healthy')
  t.throws(() => registry.register('database', () => 'Healthy'), /already registered/)
  t.throws(() => registry.register('Bad Name', () => 'Healthy'), /lower case/)
  t.throws(() => registry.latest('nope'), /No health check/)
})

t.test('a dependency that fails for many runs writes one line when lost and one when back', async t => {
  const lines: Array<{ msg: string, obj: object }> = []
  const log = { warn: (obj: object, msg: string) => lines.push({ msg, obj }), info: (obj: object, msg: string) => lines.push({ msg, obj }) }
  const registry = createHealthRegistry({ timeout: 500, cacheTtl: 0 }, log)
  let up = true
  registry.register('db', () => { if (!up) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })
  await registry.run('db')
  up = false
  for (let i = 0; i < 20; i++) await registry.run('db')
  up = true
  for (let i = 0; i < 5; i++) await registry.run('db')
  t.same(lines, [
    { msg: 'dependency lost', obj: { check: 'db', status: 'Unhealthy', error: 'Error', code: 'ECONNREFUSED', message: 'refused' } },
    { msg: 'dependency back', obj: { check: 'db', status: 'Healthy', was: 'Unhealthy' } }
  ])
})
