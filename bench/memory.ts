// `npm run bench:memory`: resident memory (RSS), in the same run, of
// - the built service as the image runs it (the Dockerfile's V8 flags, NODE_ENV=production), and of
//   the yardstick, the same-JSON app of bench/same-json-app.ts (and the plain app of bench/plain-app.ts)
//   on node's defaults, each alone on a fresh PostgreSQL database seeded with realistic data: at idle
//   after start, at the peak of a 64-connection list load, and after the load;
// - `npm start` on an empty embedded database: the server and its database process together, at idle
//   after readiness.
// These figures set the Kubernetes memory request and limit and SHED_MAX_RSS_BYTES.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.ts'
import { freePort, freshDatabase, positiveInteger, printRows, root, waitFor, writeResults, choosePinning } from './harness.ts'
import { appScript, rssBytes, SHIPPED_NODE_FLAGS, shippedEnvironment } from './shipped-process.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const counts = { vagas: positiveInteger('BENCH_VAGAS', 1000), candidatos: positiveInteger('BENCH_CANDIDATOS', 100_000) }
const idleSeconds = positiveInteger('BENCH_IDLE_SECONDS', 10)
const loadSeconds = positiveInteger('BENCH_DURATION', 30)
const MiB = 1024 * 1024

interface Subject { name: string, args: string[], env: Record<string, string> }

interface Footprint { idleMiB: number, peakMiB: number, afterLoadMiB: number, requests: number, non2xx: number }

/** The process and every process it started (the embedded database's), by pid. */
function processTree (pid: number): number[] {
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  } catch {}
  return [pid, ...children.flatMap(processTree)]
}

function treeRss (pid: number): number {
  return processTree(pid).reduce((sum, each) => {
    try {
      return sum + rssBytes(each)
    } catch {
      return sum // it ended between the listing and the reading
    }
  }, 0)
}

const mib = (bytes: number) => +(bytes / MiB).toFixed(1)

async function started (subject: Subject, port: number, readyPath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, subject.args, { cwd: root, env: { ...subject.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] })
  await waitFor(`http://127.0.0.1:${port}`, readyPath, 200, 120_000, child)
  return child
}

async function stopped (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit')
}

async function listIds (url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ id: string }>('select id from vagas')).rows.map(row => row.id)
  } finally {
    await client.end()
  }
}

/** Idle, then 64 connections of filtered candidato lists (v1 with total, v2) and vaga lists, then idle again. */
async function underListLoad (subject: Subject, vagas: string[], authorization: string): Promise<Footprint> {
  const port = await freePort()
  const child = await started(subject, port, '/ping')
  try {
    await sleep(idleSeconds * 1000)
    const idle = treeRss(child.pid!)
    let peak = idle
    const sampler = setInterval(() => { peak = Math.max(peak, treeRss(child.pid!)) }, 100)
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 64,
      duration: loadSeconds,
      headers: { authorization },
      requests: [{
        setupRequest: request => {
          const roll = Math.random()
          const vaga = vagas[Math.floor(Math.random() * vagas.length)]
          const path = roll < 0.4
            ? `/api/v1/candidatos?status=inscrito&vagaId=${vaga}&sort=-criadoEm&limit=20`
            : roll < 0.8 ? `/api/v2/candidatos?status=inscrito&vagaId=${vaga}&sort=-criadoEm&limit=20` : '/api/v1/vagas?limit=20'
          return { ...request, path }
        }
      }]
    })
    clearInterval(sampler)
    await sleep(idleSeconds * 1000)
    return { idleMiB: mib(idle), peakMiB: mib(peak), afterLoadMiB: mib(treeRss(child.pid!)), requests: result.requests.total, non2xx: result.non2xx }
  } finally {
    await stopped(child)
  }
}

/** `npm start` on an empty embedded database: server and database process, idle after readiness. */
async function embeddedIdle (): Promise<{ idleMiB: number, processes: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-memory-'))
  const npmStart = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start as string
  const args = npmStart.split(' ').slice(1)
  try {
    const child = await started({ name: 'npm start', args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATA_DIR: dataDir, LOG_LEVEL: 'warn' } }, await freePort(), '/health/ready')
    try {
      await sleep(idleSeconds * 1000)
      return { idleMiB: mib(treeRss(child.pid!)), processes: processTree(child.pid!).length }
    } finally {
      await stopped(child)
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const database = await freshDatabase(serverUrl, 'bench_memory')
try {
  process.stdout.write(`seeding ${counts.vagas} vagas and ${counts.candidatos} candidatos ...\n`)
  const seeded = spawnSync(process.execPath, ['scripts/start.js', 'src/cli/seed.js', String(counts.vagas), String(counts.candidatos)], {
    cwd: root, env: { ...process.env, DATABASE_URL: database.url }, stdio: ['ignore', 'ignore', 'inherit']
  })
  if (seeded.status !== 0) throw new Error('seeding failed')
  const vagas = await listIds(database.url)
  const authorization = `Bearer ${await mintToken({ sub: 'bench', scope: 'vagas:read candidatos:read', ttl: 3600 })}`
  const serviceEnv = shippedEnvironment({ DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '0', SHED_MAX_EVENT_LOOP_DELAY_MS: '0' })
  const subjects: Subject[] = [
    { name: `service, as the image runs it (${SHIPPED_NODE_FLAGS.join(' ')})`, args: [...SHIPPED_NODE_FLAGS, 'dist/src/server.js'], env: serviceEnv },
    { name: 'service, node defaults', args: ['dist/src/server.js'], env: serviceEnv },
    { name: 'same-JSON app (bench/same-json-app.ts), node defaults', args: [appScript('same-json-app')], env: { PATH: serviceEnv.PATH!, NODE_ENV: 'production', DATABASE_URL: database.url } },
    { name: 'plain app (bench/plain-app.ts), node defaults', args: [appScript('plain-app')], env: { PATH: serviceEnv.PATH!, NODE_ENV: 'production', DATABASE_URL: database.url } }
  ]
  const footprints: Record<string, Footprint> = {}
  for (const subject of subjects) {
    process.stdout.write(`${subject.name}: idle ${idleSeconds} s, list load ${loadSeconds} s, idle ${idleSeconds} s\n`)
    footprints[subject.name] = await underListLoad(subject, vagas, authorization)
  }
  process.stdout.write('npm start on an empty embedded database ...\n')
  const embedded = await embeddedIdle()

  // The target: the service as the image runs it within 1.5 times the same-JSON app, idle and at the peak.
  const app = footprints[subjects[2]!.name]!
  const ratio = (mine: number, its: number, target: boolean) => `${(mine / its).toFixed(2)}${target ? (mine / its <= 1.5 ? ' meets ≤ 1.5' : ' MISSES ≤ 1.5') : ''}`
  const rows = [['process', '', 'idle MiB', 'peak MiB', 'after MiB', 'requests', 'idle / same-JSON app', 'peak / same-JSON app']]
  for (const [name, f] of Object.entries(footprints)) {
    const shipped = name === subjects[0]!.name
    rows.push([name, '', String(f.idleMiB), String(f.peakMiB), String(f.afterLoadMiB), `${f.requests} (${f.non2xx} not 2xx)`, ratio(f.idleMiB, app.idleMiB, shipped), ratio(f.peakMiB, app.peakMiB, shipped)])
  }
  rows.push([`npm start, embedded database (${embedded.processes} processes)`, '', String(embedded.idleMiB), '-', '-', '-', '', ''])
  printRows(rows)
  writeResults('memory.json', choosePinning(), { data: counts, idleSeconds, loadSeconds, connections: 64, footprints, embedded })
} finally {
  await database.drop()
}
