// The memory the shipped Kubernetes manifests reserve matches what the service takes, measured on a
// real process run as the image runs it (the Dockerfile's V8 flags, production settings) on
// PostgreSQL: idle and under a bounded read and list load. `npm run bench:memory` is the full-size run.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { test } from 'tap'
import { rssBytes, SHIPPED_NODE_FLAGS, shippedEnvironment } from '../../bench/shipped-process.ts'
import { createDatabase } from '../../src/storage/database.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import { seed } from '../../src/storage/seed.ts'
import { mintToken, TEST_JWT_SECRET } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { closedPort } from '../support/closed-port.ts'

const root = join(import.meta.dirname, '../..')
const MiB = 1024 * 1024
// What the embedded database's process may take idle (docs/benchmarks.md, "Memory").
const EMBEDDED_DATABASE_BUDGET = 200 * MiB

function manifest (name: string): string {
  return readFileSync(join(root, 'deploy/k8s', name), 'utf8')
}

/** `memory: <n>Mi` under `requests:` or `limits:` of the Deployment's container, in bytes. */
function memoryOf (section: 'requests' | 'limits'): number {
  const match = new RegExp(`${section}:\\s*\\n(?:\\s+cpu:.*\\n)?\\s+memory:\\s*(\\d+)Mi`).exec(manifest('deployment.yaml'))
  if (match === null) throw new Error(`deployment.yaml sets no memory ${section}`)
  return Number(match[1]) * MiB
}

/** The HPA's memory utilisation target as a fraction, or undefined when it does not scale on memory. */
function hpaMemoryTarget (): number | undefined {
  const match = /name:\s*memory\s*\n\s+target:\s*\n\s+type:\s*Utilization\s*\n\s+averageUtilization:\s*(\d+)/.exec(manifest('hpa.yaml'))
  return match === null ? undefined : Number(match[1]) / 100
}

test('the Kubernetes memory request, limit and autoscaling fit the service idle and under load', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  const database = createDatabase({ url, dataDir: '', poolSize: 4 })
  let vagaIds: string[]
  let candidatoIds: string[]
  try {
    await migrateToLatest(database.db)
    vagaIds = (await seed(database.db, { vagas: 200, candidatos: 20_000 })).vagaIds
    candidatoIds = (await database.db.selectFrom('candidatos').select('id').limit(2000).execute()).map(row => row.id)
  } finally {
    await database.close()
  }

  const port = await closedPort() // free a moment ago: the service takes it
  const child = spawn(process.execPath, [...SHIPPED_NODE_FLAGS, 'scripts/start.js'], {
    cwd: root,
    env: shippedEnvironment({
      PORT: String(port),
      DATABASE_URL: url,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_MAX: '0',
      SHED_MAX_EVENT_LOOP_DELAY_MS: '0'
    }),
    stdio: ['ignore', 'ignore', 'inherit']
  })
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGKILL')
    await once(child, 'exit')
  })
  const base = `http://127.0.0.1:${port}`
  // Compiling dist/ first may take a while on a busy machine.
  await eventually(async () => {
    const response = await fetch(`${base}/health/ready`)
    if (response.status !== 200) throw new Error(`readiness answered ${response.status}`)
  }, { timeout: 90_000, interval: 200 })

  const request = memoryOf('requests')
  const limit = memoryOf('limits')
  const hpaTarget = hpaMemoryTarget()
  const pid = child.pid as number
  const idle = rssBytes(pid)
  t.comment(`idle RSS ${(idle / MiB).toFixed(0)} MiB; request ${request / MiB} MiB, limit ${limit / MiB} MiB, HPA memory target ${hpaTarget ?? 'none'}`)
  t.ok(idle < request, 'an idle instance fits its memory request')
  if (hpaTarget !== undefined) t.ok(idle < hpaTarget * request, 'an idle instance stays below the autoscaling memory target')

  const token = await mintToken({ scope: 'vagas:read candidatos:read', ttl: 600 })
  let peak = idle
  const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(pid)) }, 100) // samples RSS through the load: no wait
  const pick = (ids: string[]): string => ids[Math.floor(Math.random() * ids.length)] as string
  const result = await autocannon({
    url: base,
    connections: 64,
    amount: 6000,
    timeout: 30,
    headers: { authorization: `Bearer ${token}` },
    requests: [{
      setupRequest: req => ({
        ...req,
        path: Math.random() < 0.5
          ? `/api/v1/candidatos/${pick(candidatoIds)}`
          : `/api/v1/candidatos?status=inscrito&vagaId=${pick(vagaIds)}&sort=-criadoEm&limit=20`
      })
    }]
  })
  clearInterval(sampler)
  const after = rssBytes(pid)
  t.comment(`peak RSS under load ${(peak / MiB).toFixed(0)} MiB, after ${(after / MiB).toFixed(0)} MiB (${result.requests.total} requests)`)
  t.equal(result.non2xx + result.errors, 0, 'every request of the load answered 2xx')
  t.ok(peak < request, 'a loaded instance fits its memory request')
  t.ok(peak < 0.75 * limit, 'a loaded instance leaves a quarter of its limit for spikes')
  // A process keeps what a load made it take: a memory target it stays above would never scale back in.
  if (hpaTarget !== undefined) t.ok(after < hpaTarget * request, 'after the load the instance is back under the autoscaling memory target')
})

test('on a new DATA_DIR, the embedded database process stays small once the service is ready', async t => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memory-embedded-'))
  const port = await closedPort()
  const child = spawn(process.execPath, [...SHIPPED_NODE_FLAGS, 'scripts/start.js'], {
    cwd: root,
    env: shippedEnvironment({ PORT: String(port), DATA_DIR: dataDir, AUTH_JWT_SECRET: TEST_JWT_SECRET }),
    stdio: ['ignore', 'ignore', 'inherit']
  })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
    rmSync(dataDir, { recursive: true, force: true })
  })
  await eventually(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`)
    if (response.status !== 200) throw new Error(`readiness answered ${response.status}`)
  }, { timeout: 90_000, interval: 200 })
  const [database] = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  const rss = rssBytes(database!)
  t.comment(`embedded database process: ${(rss / MiB).toFixed(0)} MiB`)
  // Creating the database (initdb) in the serving process, PGlite's default shared buffers and
  // optimised WebAssembly code each took it well past this.
  t.ok(rss < EMBEDDED_DATABASE_BUDGET, `under ${EMBEDDED_DATABASE_BUDGET / MiB} MiB`)
})
