// Sustained load on two instances behind HAProxy next to one instance alone, in the same run, on a
// fresh PostgreSQL database: a mix of reads, writes and candidato actions.
//   npm run build && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
//   TEST_REDIS_URL=redis://127.0.0.1:6379 node --import=tsx bench/cluster.ts
// BENCH_DURATION (seconds, default 60) per target; CLUSTER_CHECK_PATH as in test/cluster/cluster.ts.
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.js'
import { startHaproxy } from '../test/cluster/haproxy.js'
import { freePorts, startChild, waitForPort, type Child } from '../test/cluster/processes.js'

const root = resolve(import.meta.dirname, '..')
const DURATION = Number(process.env.BENCH_DURATION ?? 60)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const serverUrl = process.env.TEST_DATABASE_URL
const redisUrl = process.env.TEST_REDIS_URL
if (serverUrl === undefined || redisUrl === undefined) {
  console.error('TEST_DATABASE_URL and TEST_REDIS_URL are needed')
  process.exit(1)
}

const children: Child[] = []
const dir = await mkdtemp(join(tmpdir(), 'bench-cluster-'))
const dbName = `bench_${randomBytes(6).toString('hex')}`
const admin = new pg.Client({ connectionString: serverUrl })
await admin.connect()
await admin.query(`CREATE DATABASE ${dbName}`)
const databaseUrl = new URL(serverUrl)
databaseUrl.pathname = `/${dbName}`

async function cleanUp (): Promise<void> {
  for (const child of children.reverse()) await child.stop()
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await admin.end()
  await rm(dir, { recursive: true, force: true })
}

try {
  const env = {
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `bench:${process.pid}:`,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    TRUST_PROXY: '127.0.0.1',
    // The limit is shared through Redis and kept on, high enough that the load is never refused.
    RATE_LIMIT_MAX: '1000000',
    LOG_LEVEL: 'warn',
    SHUTDOWN_DRAIN_DELAY_MS: '2500',
    NODE_ENV: 'production',
    HOST: '127.0.0.1'
  }
  const [port1, port2, lbPort] = await freePorts(3) as [number, number, number]
  const ports = [port1, port2]
  for (const [index, port] of ports.entries()) {
    const child = startChild(`app${index + 1}`, process.execPath, [join(root, 'dist/src/server.js')], { ...env, PORT: String(port), DATA_DIR: join(dir, `app${index + 1}`) })
    children.push(child)
    await waitForPort(port, 30_000).catch(error => { console.error(child.output()); throw error })
  }
  const checkPath = process.env.CLUSTER_CHECK_PATH
  const haproxy = await startHaproxy({ dir, root, port: lbPort, servers: ports.map(port => `127.0.0.1:${port}`), checkPath })
  children.push(haproxy.child)
  while ((await haproxy.server('app1')).status !== 'UP' || (await haproxy.server('app2')).status !== 'UP') await sleep(100)
  await sleep(5_500) // past HAProxy's slow start, so both instances take their full share

  const authorization = `Bearer ${await mintToken({ sub: 'bench', scope: 'vagas:read vagas:write candidatos:read candidatos:write', ttl: 3600 })}`
  const seeded = await fetch(`http://127.0.0.1:${lbPort}/api/v1/vagas`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ titulo: 'Vaga semente' })
  })
  type Step = autocannon.Request
  const candidatoOf = (context: object): string => String((context as Record<string, unknown>).candidato)
  let requests: Step[]
  if (seeded.status === 201) {
    const one = new URL(seeded.headers.get('location') ?? '', 'http://x').pathname
    const vagaId = one.split('/').pop() ?? ''
    const json = { 'content-type': 'application/json' }
    let serial = 0
    // Per connection, in turn: 6 list reads, 1 read of one vaga, 1 vaga created, 1 vaga updated, and a
    // candidato's life: created, candidatar to the vaga, aprovar, then the approval cancelled.
    requests = [
      ...Array.from({ length: 6 }, (): Step => ({ method: 'GET', path: '/api/v1/vagas?limit=20' })),
      { method: 'GET', path: one },
      { method: 'POST', path: '/api/v1/vagas', body: JSON.stringify({ titulo: 'Vaga de carga' }), headers: json },
      { method: 'PATCH', path: one, body: JSON.stringify({ descricao: 'atualizada' }), headers: json },
      {
        method: 'POST',
        path: '/api/v1/candidatos',
        headers: json,
        setupRequest: request => ({ ...request, body: JSON.stringify({ nome: 'Pessoa de carga', email: `carga-${process.pid}-${++serial}@example.org` }) }),
        onResponse: (_status, body, context) => { (context as Record<string, unknown>).candidato = (JSON.parse(body) as { id?: string }).id }
      },
      { method: 'POST', path: '/', headers: json, body: JSON.stringify({ vagaId }), setupRequest: (request, context) => ({ ...request, path: `/api/v1/candidatos/${candidatoOf(context)}/candidatar` }) },
      { method: 'POST', path: '/', setupRequest: (request, context) => ({ ...request, path: `/api/v1/candidatos/${candidatoOf(context)}/aprovar` }) },
      { method: 'DELETE', path: '/', setupRequest: (request, context) => ({ ...request, path: `/api/v1/candidatos/${candidatoOf(context)}/aprovar` }) }
    ]
  } else {
    console.log(`POST /api/v1/vagas answered ${seeded.status}: no recruitment routes in this build; read-only mix on /api/v1/user and /api/versions`)
    requests = [{ method: 'GET', path: '/api/v1/user' }, { method: 'GET', path: '/api/versions' }]
  }

  async function run (name: string, port: number) {
    const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration: DURATION, headers: { authorization }, requests })
    const codes = Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => `${code}:${(stat as { count: number }).count}`).join(' ')
    return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, codes }
  }

  // Warm both instances up through HAProxy first, so neither figure pays for JIT compilation.
  await autocannon({ url: `http://127.0.0.1:${lbPort}`, connections: CONNECTIONS, duration: 5, headers: { authorization }, requests })
  const single = await run('one instance', ports[0])
  const cluster = await run('cluster (HAProxy, 2 instances)', lbPort)
  const rows = [cluster, single]
  for (const row of rows) {
    console.log(`${row.name.padEnd(32)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}  status ${row.codes}`)
  }
  console.log(`cluster / one instance: ${(rows[0].rps / rows[1].rps).toFixed(2)} (both on the same ${DURATION} s budget, same machine)`)
} finally {
  await cleanUp()
}
