import t from 'tap'
import { bearer, build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { startTcpRelay } from '../support/tcp-relay.ts'

interface LogLine { level: number, msg?: string, err?: { stack?: string }, check?: string, refused?: Record<string, number>, [key: string]: unknown }

const WARN = 40

function logCollector () {
  const lines: LogLine[] = []
  return { lines, stream: { write: (line: string) => { lines.push(JSON.parse(line) as LogLine) } } }
}

t.test('PostgreSQL down under load: state changes and a count per interval, not a line and stack per request', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  // This test's own path to the database: cutting it leaves the shared server alone.
  const database = new URL(url)
  const relay = await startTcpRelay(database.hostname, Number(database.port || 5432))
  t.teardown(() => relay.close())
  database.hostname = '127.0.0.1'
  database.port = String(relay.port)

  const log = logCollector()
  const app = await build(t, {
    env: { DATABASE_URL: database.toString(), LOG_LEVEL: 'info', HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0', REFUSED_LOG_INTERVAL_MS: '500', DATABASE_POOL_TIMEOUT_MS: '300' },
    logStream: log.stream
  })
  await app.health.lifecycle.reached('serving')
  const auth = await bearer({ scope: 'vagas:read' })
  const linesBefore = log.lines.length

  await relay.cut()
  await eventually(async () => { if ((await app.inject('/health/ready')).statusCode !== 503) throw new Error('still ready') }, { timeout: 15_000 })
  let refused = 0
  for (let round = 0; round < 10; round++) {
    const answers = await Promise.all(Array.from({ length: 40 }, async () => await app.inject({ url: '/api/v1/vagas', headers: auth })))
    for (const answer of answers) {
      if (answer.statusCode === 503 && answer.json().code === 'DatabaseUnavailable') refused++
    }
  }
  t.equal(refused, 400, 'every request during the outage is a 503 DatabaseUnavailable problem')
  await relay.restore()
  await eventually(async () => { if ((await app.inject('/health/ready')).statusCode !== 200) throw new Error('not ready yet') }, { timeout: 30_000 })
  // The last interval's count is written once the interval ends.
  const counted = (): number => log.lines.slice(linesBefore).reduce((sum, line) => sum + (line.refused?.DatabaseUnavailable ?? 0), 0)
  await eventually(() => { if (counted() < refused) throw new Error(`${counted()} counted`) })

  const outage = log.lines.slice(linesBefore).filter(line => line.msg !== 'request completed')
  const noisy = outage.filter(line => line.level >= WARN)
  t.equal(outage.filter(line => line.err?.stack !== undefined).length, 0, 'no stack trace')
  t.equal(outage.filter(line => line.msg === 'request failed').length, 0, 'no line per failed request')
  t.same(outage.filter(line => line.check === 'database').map(line => line.msg), ['dependency lost', 'dependency back'], 'the database check writes its state changes only')
  t.equal(counted(), refused, 'the refused requests are counted, per interval')
  t.ok(noisy.length <= 25, `${noisy.length} warning and error lines for ${refused} refused requests: ${[...new Set(noisy.map(line => line.msg))].join(', ')}`)
  t.notMatch(JSON.stringify(outage), /ECONNREFUSED 127|postgres:\/\//, 'no address or connection string')
})

t.test('a handler that outlives HANDLER_TIMEOUT: no "Reply was already sent" warning when it finishes or fails late', async t => {
  const log = logCollector()
  let finished = 0
  const app = await build(t, {
    env: { HANDLER_TIMEOUT: '100', LOG_LEVEL: 'info' },
    logStream: log.stream,
    extraRoutes: scope => {
      const late = (fail: boolean) => async () => {
        await new Promise(resolve => setTimeout(resolve, 300)) // slow on purpose, past HANDLER_TIMEOUT: the behaviour under test
        finished++
        if (fail) throw new Error('late failure')
        return { late: true }
      }
      scope.get('/late', late(false))
      scope.get('/late-failure', late(true))
    }
  })
  for (const url of ['/late', '/late-failure']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 503, url)
    t.equal(res.json().code, 'HandlerTimeout')
  }
  await eventually(() => { if (finished < 2) throw new Error('the handlers are still running') })
  // A late send would be logged in the same turn as the handler's end; let that turn pass.
  await new Promise(resolve => setImmediate(resolve))
  const warnings = log.lines.filter(line => line.level >= WARN)
  t.same(warnings.map(line => line.msg ?? (line.err as { message?: string } | undefined)?.message), [], 'no warning or error line')
})
