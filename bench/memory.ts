// `npm run bench:memory`: the resident memory (RSS) of one built service process, as the image runs it
// (the Dockerfile's V8 flags, NODE_ENV=production, LOG_LEVEL=info), on a fresh PostgreSQL database
// seeded with realistic data: at idle after start, at the peak of a mixed read and list load, and
// after the load. These figures set the Kubernetes memory request, limit and autoscaling target.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { SignJWT } from 'jose'
import { rssBytes, SHIPPED_NODE_FLAGS, shippedEnvironment } from './shipped-process.js'
import { freshDatabase } from './harness.js'

const root = resolve(import.meta.dirname, '..')
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const counts = { vagas: Number(process.env.BENCH_VAGAS ?? 1000), candidatos: Number(process.env.BENCH_CANDIDATOS ?? 100_000) }
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10)
const loadSeconds = Number(process.env.BENCH_DURATION ?? 30)
const secret = 'bench-secret-for-hs256-tokens-0123456789abcdef'
const MiB = 1024 * 1024

async function sampleIds (url: string): Promise<{ vagas: string[], candidatos: string[] }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const vagas = (await client.query<{ id: string }>('select id from vagas')).rows.map(row => row.id)
  const candidatos = (await client.query<{ id: string }>('select id from candidatos order by random() limit 5000')).rows.map(row => row.id)
  await client.end()
  return { vagas, candidatos }
}

function pick<T> (items: T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T
}

const database = await freshDatabase(serverUrl, 'bench_memory')
try {
  process.stdout.write(`seeding ${counts.vagas} vagas and ${counts.candidatos} candidatos ...\n`)
  const seeded = spawnSync(process.execPath, ['scripts/start.js', 'src/cli/seed.js', String(counts.vagas), String(counts.candidatos)], {
    cwd: root, env: { ...process.env, DATABASE_URL: database.url }, stdio: ['ignore', 'ignore', 'inherit']
  })
  if (seeded.status !== 0) throw new Error('seeding failed')
  const ids = await sampleIds(database.url)

  const port = 30_000 + Math.floor(Math.random() * 20_000)
  const child = spawn(process.execPath, [...SHIPPED_NODE_FLAGS, 'dist/src/server.js'], {
    cwd: root,
    env: shippedEnvironment({
      PORT: String(port),
      DATABASE_URL: database.url,
      AUTH_JWT_SECRET: secret,
      RATE_LIMIT_MAX: '0'
    }),
    stdio: ['ignore', 'ignore', 'inherit']
  })
  const base = `http://127.0.0.1:${port}`
  try {
    const deadline = Date.now() + 60_000
    for (;;) {
      const ready = await fetch(`${base}/health/ready`).then(r => r.status === 200, () => false)
      if (ready) break
      if (Date.now() > deadline) throw new Error('the service never became ready')
      await sleep(200)
    }
    await sleep(idleSeconds * 1000)
    const idle = rssBytes(child.pid as number)

    const token = await new SignJWT({ scope: 'vagas:read candidatos:read' }).setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench').setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret))
    let peak = idle
    const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(child.pid as number)) }, 250)
    const result = await autocannon({
      url: base,
      connections: 64,
      duration: loadSeconds,
      headers: { authorization: `Bearer ${token}` },
      requests: [{
        setupRequest: request => {
          const roll = Math.random()
          const path = roll < 0.5
            ? `/api/v1/candidatos/${pick(ids.candidatos)}`
            : roll < 0.8
              ? `/api/v1/candidatos?status=inscrito&vagaId=${pick(ids.vagas)}&sort=-criadoEm&limit=20`
              : '/api/v2/vagas?limit=50'
          return { ...request, path }
        }
      }]
    })
    clearInterval(sampler)
    await sleep(idleSeconds * 1000)
    const after = rssBytes(child.pid as number)

    const figures = {
      nodeFlags: SHIPPED_NODE_FLAGS,
      data: counts,
      load: { seconds: loadSeconds, connections: 64, requests: result.requests.total, non2xx: result.non2xx, requestsPerSecond: result.requests.average },
      rssMiB: { idle: +(idle / MiB).toFixed(1), peak: +(peak / MiB).toFixed(1), afterLoad: +(after / MiB).toFixed(1) }
    }
    process.stdout.write(`\nRSS with ${SHIPPED_NODE_FLAGS.join(' ')}, on PostgreSQL (${counts.vagas} vagas, ${counts.candidatos} candidatos)\n`)
    process.stdout.write(`  idle ${figures.rssMiB.idle} MiB   peak under load ${figures.rssMiB.peak} MiB   ${idleSeconds} s after the load ${figures.rssMiB.afterLoad} MiB\n`)
    process.stdout.write(`  load: ${result.requests.total} requests in ${loadSeconds} s over 64 connections (${result.non2xx} not 2xx)\n`)
    mkdirSync(join(root, 'bench/results'), { recursive: true })
    writeFileSync(join(root, 'bench/results/memory.json'), `${JSON.stringify(figures, null, 2)}\n`)
  } finally {
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
} finally {
  await database.drop()
}
