import t from 'tap'
import { bearer } from '../helper.ts'
import { embeddedDatabasePid } from '../support/embedded-database.ts'
import { eventually } from '../support/eventually.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'

interface Answer { status: number, code?: string, id?: string }

async function call (url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) })
  const body = await response.json().catch(() => ({})) as { code?: string, id?: string }
  return { status: response.status, code: body.code, id: body.id }
}

t.test('from the first 200 of /health/ready, 1,000 authenticated requests over 5 s all answer 200 (no Overloaded)', async t => {
  // Load shedding as deployed: on, at its default event-loop delay. No rate limit, as the load comes from
  // one client; and on a machine that other test processes share, a query may wait for a pooled
  // connection longer than the default 2 s: this test is about refusals, not latency.
  const server = await startServerProcess(t, { SHED_MAX_EVENT_LOOP_DELAY_MS: '1000', RATE_LIMIT_MAX: '0', DATABASE_POOL_TIMEOUT_MS: '60000' })
  const headers = await bearer({ scope: 'vagas:read' })
  await untilReady(server.url, 60_000)
  const started = Date.now()
  const answers = await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
    await new Promise(resolve => setTimeout(resolve, Math.max(0, started + i * 5 - Date.now()))) // pacing: 200 requests a second
    return await call(`${server.url}/api/v1/vagas?limit=20`, { headers })
  }))
  const unexpected = answers.filter(answer => answer.status !== 200)
  t.same(unexpected, [], 'every request answered 200')
  t.ok(Date.now() - started < 60_000, `all answered in ${Date.now() - started} ms`)
})

t.test('the embedded database killed under load: 503 DatabaseUnavailable, readiness Unhealthy, recovery without restarting the service, committed rows kept', async t => {
  const server = await startServerProcess(t, { HEALTH_REFRESH_INTERVAL_MS: '200', HEALTH_CACHE_TTL_MS: '0', RATE_LIMIT_MAX: '0' })
  await untilReady(server.url, 60_000)
  const write = { ...await bearer({ scope: 'vagas:write' }), 'content-type': 'application/json' }
  const read = await bearer({ scope: 'vagas:read' })
  const killed = embeddedDatabasePid(server.child.pid!)

  // Four writers create vagas without pause until told to stop; every 201 is a committed row.
  const committed: string[] = []
  const statuses = new Map<string, number>()
  const load = { stopped: false, afterKill: false }
  const seenAfterKill = new Set<string>()
  const writers = Array.from({ length: 4 }, async (_, writer) => {
    for (let n = 0; !load.stopped; n++) {
      const answer = await call(`${server.url}/api/v1/vagas`, { method: 'POST', headers: write, body: JSON.stringify({ titulo: `Vaga ${writer}-${n}`, status: 'aberta' }) })
      if (answer.status === 201 && answer.id !== undefined) committed.push(answer.id)
      const key = `${answer.status} ${answer.code ?? ''}`.trim()
      statuses.set(key, (statuses.get(key) ?? 0) + 1)
      if (load.afterKill) seenAfterKill.add(key)
    }
  })
  try {
    await eventually(() => { if (committed.length < 20) throw new Error(`${committed.length} rows so far`) }, { timeout: 30_000 })
    process.kill(killed, 'SIGKILL')
    load.afterKill = true
    const down = await eventually(async () => {
      const response = await fetch(`${server.url}/health/ready`)
      const body = await response.json() as { status: string, checks: Record<string, string> }
      if (response.status !== 503) throw new Error(`readiness answered ${response.status}`)
      return body
    }, { timeout: 10_000, interval: 10 })
    t.equal(down.status, 'Unhealthy', 'readiness turns Unhealthy while the database is down')
    t.equal(down.checks.database, 'Unhealthy')
    await eventually(() => { if (!seenAfterKill.has('503 DatabaseUnavailable')) throw new Error('no 503 yet') }, { timeout: 10_000 })
    await untilReady(server.url, 60_000)
    const before = committed.length
    await eventually(() => { if (committed.length < before + 20) throw new Error('writes have not resumed') }, { timeout: 30_000 })
  } finally {
    load.stopped = true
    await Promise.all(writers)
  }
  t.ok(seenAfterKill.has('503 DatabaseUnavailable'), 'requests during the outage answer 503 DatabaseUnavailable')
  t.same([...statuses.keys()].filter(key => key !== '201' && key !== '503 DatabaseUnavailable'), [], `only 201 and 503 answers (${JSON.stringify([...statuses])})`)
  t.equal(server.child.exitCode, null, 'the service was not restarted')
  t.not(embeddedDatabasePid(server.child.pid!), killed, 'the database runs in a new process')
  t.match(server.output(), /"signal":"SIGKILL".*"msg":"embedded database stopped; restarting"/)

  const missing: string[] = []
  for (const id of committed) {
    const answer = await call(`${server.url}/api/v1/vagas/${id}`, { headers: read })
    if (answer.status !== 200) missing.push(`${id}: ${answer.status}`)
  }
  t.same(missing, [], `every one of the ${committed.length} committed rows is still there`)
})
