import t from 'tap'
import { attemptLimitSeconds, batchLimitSeconds } from '../../src/webhooks/attempt-limit.ts'

t.test('an attempt\'s limit: the receiver\'s timeout, then its statements\' waits and deadlines', async t => {
  t.equal(attemptLimitSeconds({ timeoutMs: 10_000, poolTimeoutMs: 2000, statementDeadlineMs: 9000 }), 10 + 3 * (2 + 9) + 1, 'with the defaults')
  t.equal(attemptLimitSeconds({ timeoutMs: 1500, poolTimeoutMs: 100, statementDeadlineMs: 100 }), 3 + 1, 'in whole seconds, rounded up')
  t.equal(attemptLimitSeconds({ timeoutMs: 10_000, poolTimeoutMs: 2000, statementDeadlineMs: 0 }), 10 + 30 + 1, 'statements without a deadline are given a fixed time')
})

t.test('a batch\'s limit: sends begun for up to one timeout, then its statements', async t => {
  t.equal(batchLimitSeconds({ timeoutMs: 10_000, poolTimeoutMs: 2000, statementDeadlineMs: 9000 }), 20 + 7 * (2 + 9) + 1, 'with the defaults')
})
