// What rate limiting costs per request: a small JSON route with rate limiting off, counted in this
// process, and counted in Redis; /ping (exempt) alongside. Short runs:
// `FASTIFY_AUTOLOAD_TYPESCRIPT=1 TEST_REDIS_URL=redis://127.0.0.1:6379 node --import=tsx bench/rate-limit-cost.ts`.
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { serverOptions } from '../src/server-options.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 5)
const redisUrl = process.env.TEST_REDIS_URL

async function serve (env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'rate-limit-bench-'))
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_JWT_SECRET: 'bench-secret-for-hs256-tokens-0123456789abcdef', ...env })
  const server = Fastify(serverOptions(config))
  await server.register(fp(app), { config })
  await server.register(async scope => { scope.get('/things', async () => ({ ok: true })) })
  // The embedded database opens on the event loop: measure only once it is done.
  await server.ready()
  await server.storage.whenReady()
  await server.listen({ port: 0, host: '127.0.0.1' })
  const { port } = server.server.address() as { port: number }
  return { port, close: async () => { await server.close(); await rm(dataDir, { recursive: true, force: true }) } }
}

// autocannon runs in its own process, so the server's event loop is the service's alone.
async function measure (port: number, path: string): Promise<{ rps: number, p99: number, non2xx: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    'node_modules/autocannon/autocannon.js', '--json', '-c', '20', '-d', String(DURATION), `http://127.0.0.1:${port}${path}`
  ], { maxBuffer: 16 * 1024 * 1024 })
  const result = JSON.parse(stdout) as { requests: { average: number }, latency: { p99: number }, non2xx: number }
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx }
}

const scenarios: Array<[string, Record<string, string>]> = [
  ['off', { RATE_LIMIT_MAX: '0' }],
  ['local', { RATE_LIMIT_MAX: '1000000' }],
  ...(redisUrl === undefined ? [] : [['redis', { RATE_LIMIT_MAX: '1000000', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench:${process.pid}:` }]] as Array<[string, Record<string, string>]>)
]

const rows: string[] = []
let baseline = 0
for (const [name, env] of scenarios) {
  const server = await serve(env)
  for (const path of ['/things', '/ping']) {
    const { rps, p99, non2xx } = await measure(server.port, path)
    if (name === 'off' && path === '/things') baseline = rps
    rows.push(`${name.padEnd(6)} ${path.padEnd(8)} ${rps.toFixed(0).padStart(7)} req/s  p99 ${String(p99).padStart(3)} ms  non-2xx ${non2xx}  ${path === '/things' ? `(${(rps / baseline).toFixed(2)} of off)` : ''}`)
  }
  await server.close()
}
console.log(rows.join('\n'))
