import t from 'tap'
import assert from 'node:assert/strict'
import { lookup } from 'node:dns/promises'
import { connect } from 'node:net'
import pg from 'pg'
import { logCause } from '../../src/logging/redacted-cause.ts'
import { closedPort } from '../support/closed-port.ts'
import { freshPostgresDatabase } from '../support/services.ts'

t.test('an error that names no dependency keeps its message: a library\'s assertion says what failed', async t => {
  let failure: unknown
  try {
    assert(false, 'maintenance batch returned no result row')
  } catch (error) {
    failure = error
  }
  t.same(logCause(failure), { error: 'AssertionError', code: 'ERR_ASSERTION', message: 'maintenance batch returned no result row' })
})

t.test('a network error keeps its address out of the line', async t => {
  const port = await closedPort()
  const failure = await new Promise(resolve => connect(port, '127.0.0.1').on('error', resolve))
  t.same(logCause(failure), { error: 'Error', code: 'ECONNREFUSED' })
  const unresolved = await lookup('no-such-host.invalid').catch((error: unknown) => error)
  t.same(logCause(unresolved), { error: 'Error', code: 'ENOTFOUND' })
  t.same(logCause(new Error('fetch failed', { cause: failure })), { error: 'Error', code: 'ECONNREFUSED' }, 'nor when it is the cause')
})

t.test('a URL that failed to parse is not logged', async t => {
  let failure: unknown
  try {
    // eslint-disable-next-line no-new
    new URL('postgres://user:secret@') // a password, and no host
  } catch (error) {
    failure = error
  }
  t.same(logCause(failure), { error: 'TypeError', code: 'ERR_INVALID_URL' })
})

t.test('a database server\'s own error keeps the names it carries out of the line', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  const failure = await client.query('select * from a_table_named_in_the_message').catch((error: unknown) => error)
  t.same(logCause(failure), { error: 'error', code: '42P01' })
})

t.test('a message that reads like an address or a credential is not logged, whatever the error', async t => {
  for (const message of ['password=hunter2 at db.internal', 'cannot reach postgres://app@db:5432/x', 'refused by 10.0.0.5', 'bad token abc']) {
    t.same(logCause(new Error(message)), { error: 'Error' }, message)
  }
})
