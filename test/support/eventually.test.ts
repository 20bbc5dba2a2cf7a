import { test } from 'tap'
import { eventually } from './eventually.ts'

test('eventually returns the first value a check gives without throwing', async t => {
  let calls = 0
  const value = await eventually(() => {
    calls += 1
    if (calls < 3) throw new Error('not yet')
    return calls
  }, { interval: 1 })
  t.equal(value, 3)
})

test('eventually throws the last error once the time is up', async t => {
  await t.rejects(eventually(() => { throw new Error('never') }, { timeout: 50, interval: 5 }), { message: 'never' })
})
