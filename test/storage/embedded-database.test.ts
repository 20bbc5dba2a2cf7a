import t from 'tap'
import { embeddedDatabasePid } from '../support/embedded-database.ts'
import { freshDataDir } from '../support/pglite-template.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'

t.test('the embedded database runs in a process of its own, not on the service\'s event loop', async t => {
  const server = await startServerProcess(t)
  await untilReady(server.url)
  const database = embeddedDatabasePid(server.child.pid!)
  t.not(database, server.child.pid)
  t.match(server.output(), /"databasePid":\d+,"msg":"embedded database serving"/, 'the database process\'s id under a key of its own: pino\'s `pid` is the service\'s')
})

t.test('two instances on one DATA_DIR: the second refuses with one line, the first keeps serving', async t => {
  const dataDir = await freshDataDir(t)
  const first = await startServerProcess(t, { DATA_DIR: dataDir })
  await untilReady(first.url)
  const refused = await startServerProcess(t, { DATA_DIR: dataDir }).then(() => 'started', (error: Error) => error.message)
  const [headline, ...output] = refused.split('\n').filter(line => line !== '')
  t.equal(headline, 'server exited with 1:', 'the second instance exits 1 without listening')
  t.same(output, [`DATA_DIR ${dataDir} is locked: process ${first.child.pid} has its embedded database open; stop it, or give this instance its own DATA_DIR or a DATABASE_URL`])
  t.equal((await fetch(`${first.url}/health/ready`)).status, 200, 'the first instance still serves')
})
