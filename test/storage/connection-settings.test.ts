import t from 'tap'
import { sql } from 'kysely'
import { createDatabase } from '../../src/storage/database.ts'
import { freshPostgresDatabase } from '../support/services.ts'

// A file of its own: pg warns once per process, so no other test may send queries before this one.
t.test('the deadline is set on a connection before its first statement, without two queries at once on it', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  process.noDeprecation = false // the test runner may have turned deprecation warnings off
  const warnings: string[] = []
  const onWarning = (warning: Error) => { warnings.push(warning.message) }
  process.on('warning', onWarning)
  t.teardown(() => { process.off('warning', onWarning) })
  const database = createDatabase({ url, dataDir: '', poolSize: 4, statementTimeoutMs: 1234 })
  t.teardown(() => database.close())
  await database.ping() // through the pool's own query(), as the readiness check does
  const settings = await Promise.all(Array.from({ length: 4 }, async () => (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db)).rows[0]?.statement_timeout))
  t.same(settings, ['1234ms', '1234ms', '1234ms', '1234ms'], 'every connection has the deadline from its first statement')
  await new Promise(resolve => setImmediate(resolve))
  t.same(warnings.filter(message => /already executing a query/.test(message)), [], 'pg saw no second query sent while the first ran')
})
