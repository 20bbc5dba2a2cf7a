// The requests `npm run bench` measures, as data. Each one is sent, with the same settings, to the
// built service and to the bare Fastify baseline (bench/baseline.ts), which answers `pong` to any
// request. To measure a new route, add an entry here.

import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { mintToken, TEST_JWT_SECRET } from '../test/helper.ts'
import { OTLP_SINK } from './otlp-sink.ts'

/** What a scenario's setup step may change in the request, once the service is up. */
export interface PreparedRequest {
  path?: string
  headers?: Record<string, string>
  body?: string
  /** A request sent to the service alongside the measured one, by this many connections, during every measured run. */
  background?: { path: string, headers: Record<string, string>, connections: number }
}

export interface SetupContext {
  /** Where the service under test listens, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string
  /** The environment the service was started with (the defaults plus the scenario's `env`). */
  env: Readonly<Record<string, string>>
  /** Polls `path` on the service until it answers `status` (default 200), or fails after `timeoutMs`. */
  waitFor: (path: string, status?: number, timeoutMs?: number) => Promise<void>
}

export interface Scenario {
  name: string
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'
  path: string
  headers?: Record<string, string>
  body?: string
  /** The status the service must answer; other answers are counted and reported as errors. */
  expectStatus?: number
  /** Settings the service needs for this scenario, on top of the bench defaults. */
  env?: Record<string, string>
  /**
   * Scenarios of one group are measured against one service process, each in every round, and each
   * is also reported as a ratio to the group's first: a comparison of requests that no difference
   * between two processes disturbs. Members need the same `env`.
   */
  group?: string
  /**
   * The least acceptable ratio: of the group's first scenario's req/s for a later group member, else
   * of the baseline's. The run prints whether each target is met.
   */
  target?: number
  /** For a later group member: the scenario its ratio is taken against (default: the group's first). */
  relativeTo?: string
  /** Node arguments before the service's entry point (e.g. the tracing preload). */
  nodeArgs?: string[]
  /** Compare with another scenario measured by another service process: `target` then bounds this ratio ÷ that one. */
  versus?: string
  /** The largest acceptable p99 latency of the service, in ms, for a probe of one connection without pipelining. */
  maxLatencyP99Ms?: number
  /** Load shape other than the run's (100 connections, pipelining 10), e.g. a probe's. */
  connections?: number
  pipelining?: number
  /** Runs once before the service starts, with its environment: fill its database, ... */
  prepare?: (env: Readonly<Record<string, string>>) => Promise<void>
  /** Runs once against the started service before the load: mint a token, create a record, ... */
  setup?: (context: SetupContext) => Promise<PreparedRequest | undefined>
}

// Settings every scenario shares: a known signing secret; no rate limit, since the load comes from
// one client and would otherwise be measured answering 429; no load shedding, since a saturated
// service is the point of the run (the 1,000 requests in flight of the list scenario hold the event
// loop long enough to trip it); for the same reason queries wait for a pooled connection as long
// as it takes rather than the default 2 s.
const BENCH_SECRET = TEST_JWT_SECRET
const common = { AUTH_JWT_SECRET: BENCH_SECRET, RATE_LIMIT_MAX: '0', SHED_MAX_EVENT_LOOP_DELAY_MS: '0', DATABASE_POOL_TIMEOUT_MS: '600000' }
// The service runs on real PostgreSQL, as deployed. The group `embedded` runs the same build on the
// embedded database (its own process, reached through pg), compared with the PostgreSQL figures.
export const onPostgres = { ...common, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' }
const sheddingOn = { ...onPostgres, SHED_MAX_EVENT_LOOP_DELAY_MS: '1000' }
/** A setup step for scenarios that need the service ready (its checks passed) before the load. */
async function whenReady ({ waitFor }: SetupContext): Promise<undefined> {
  await waitFor('/health/ready')
  return undefined
}

/** Fills the embedded database with 100,000 candidatos through `npm run seed`, before the service opens it. */
async function seedEmbedded (env: Readonly<Record<string, string>>): Promise<void> {
  execFileSync(process.execPath, [resolve(import.meta.dirname, '../dist/src/cli/seed.js'), '20', '100000'], { env, stdio: 'ignore' })
}

async function authorization (scope: string): Promise<string> {
  return `Bearer ${await mintToken({ sub: 'bench', scope, ttl: 3600 })}`
}

/** A setup step that sends `headers` with a valid token of no particular scope. */
function withToken (headers: Record<string, string>): () => Promise<PreparedRequest> {
  return async () => ({ headers: { ...headers, authorization: await authorization('') } })
}

async function send (baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ id: string }> {
  const res = await fetch(baseUrl + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
  return await res.json() as { id: string }
}

/** One open vaga with 25 inscribed candidatos; returns the vaga and one candidato. */
async function seedVaga (baseUrl: string): Promise<{ vagaId: string, candidatoId: string, headers: Record<string, string> }> {
  const write = { authorization: await authorization('vagas:write candidatos:write') }
  const run = Math.random().toString(36).slice(2, 10)
  const vaga = await send(baseUrl, 'POST', '/api/v1/vagas', write, { titulo: `Bench ${run}`, status: 'aberta' })
  let candidatoId = ''
  for (let i = 0; i < 25; i++) {
    const candidato = await send(baseUrl, 'POST', '/api/v1/candidatos', write, { nome: `Pessoa ${i}`, email: `bench-${run}-${i}@example.com` })
    await send(baseUrl, 'POST', `/api/v1/candidatos/${candidato.id}/candidatar`, write, { vagaId: vaga.id })
    candidatoId = candidato.id
  }
  return { vagaId: vaga.id, candidatoId, headers: { authorization: await authorization('candidatos:read vagas:read') } }
}

// Tracing (docs/benchmarks.md, "Tracing"): the service started as the Dockerfile starts it, with the tracing
// preload, configured by OTEL_* variables: once without an endpoint (so tracing stays off), once
// exporting 10% of traces to a local sink; each against the same request on a process without tracing.
export const TRACING_PRELOAD = ['--import', './dist/src/tracing/preload.js']
export const tracingConfigured = { ...onPostgres, OTEL_SERVICE_NAME: 'recrutamento-api', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }
const tracingSampled = { ...tracingConfigured, OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_SINK }
/** The candidato the read scenarios read (inscribed on a vaga, so it has a history): its path and read headers. */
export async function candidatoToRead (baseUrl: string): Promise<{ path: string, headers: Record<string, string> }> {
  const { candidatoId, headers } = await seedVaga(baseUrl)
  return { path: `/api/v1/candidatos/${candidatoId}`, headers }
}
async function candidatoRead ({ baseUrl, waitFor }: SetupContext): Promise<PreparedRequest> {
  await waitFor('/health/ready')
  return await candidatoToRead(baseUrl)
}
const tracingScenarios: Scenario[] = [
  { name: 'ping-untraced', group: 'tracing', method: 'GET', path: '/ping', env: onPostgres },
  { name: 'read-untraced', group: 'tracing', method: 'GET', path: '/api/v1/candidatos/{id}', env: onPostgres, setup: candidatoRead },
  { name: 'ping-tracing-no-endpoint', group: 'tracing', relativeTo: 'ping-untraced', target: 0.97, method: 'GET', path: '/ping', env: tracingConfigured, nodeArgs: TRACING_PRELOAD },
  { name: 'read-tracing-no-endpoint', group: 'tracing', relativeTo: 'read-untraced', target: 0.97, method: 'GET', path: '/api/v1/candidatos/{id}', env: tracingConfigured, nodeArgs: TRACING_PRELOAD, setup: candidatoRead },
  { name: 'ping-sampled-10', group: 'tracing', relativeTo: 'ping-untraced', target: 0.85, method: 'GET', path: '/ping', env: tracingSampled, nodeArgs: TRACING_PRELOAD },
  { name: 'read-sampled-10', group: 'tracing', relativeTo: 'read-untraced', target: 0.85, method: 'GET', path: '/api/v1/candidatos/{id}', env: tracingSampled, nodeArgs: TRACING_PRELOAD, setup: candidatoRead },
  // Tracing on with a sampler that records nothing: what every request pays (the async context, the
  // non-recording span), apart from the sampled requests' export. No target: it explains read-sampled-10.
  { name: 'read-sampled-0', group: 'tracing', relativeTo: 'read-untraced', method: 'GET', path: '/api/v1/candidatos/{id}', env: { ...tracingSampled, OTEL_TRACES_SAMPLER_ARG: '0' }, nodeArgs: TRACING_PRELOAD, setup: candidatoRead },
  // Every request sampled: ten times the per-trace cost that read-sampled-10 pays, so its profile shows where it goes.
  { name: 'read-sampled-100', group: 'tracing', relativeTo: 'read-untraced', method: 'GET', path: '/api/v1/candidatos/{id}', env: { ...tracingSampled, OTEL_TRACES_SAMPLER_ARG: '1' }, nodeArgs: TRACING_PRELOAD, setup: candidatoRead }
]

export const scenarios: Scenario[] = [
  // /ping first: the single read and the list are compared with it in the same process and rounds.
  { name: 'ping', group: 'recruitment', method: 'GET', path: '/ping', env: onPostgres, target: 0.85 },
  {
    name: 'candidato-read',
    group: 'recruitment',
    target: 0.40,
    method: 'GET',
    path: '/api/v1/candidatos/{id}',
    env: onPostgres,
    setup: candidatoRead
  },
  {
    name: 'candidatos-list-20',
    group: 'recruitment',
    method: 'GET',
    path: '/api/v1/candidatos?status=inscrito&vagaId={vaga}&sort=-criadoEm&limit=20',
    env: onPostgres,
    setup: async ({ baseUrl, waitFor }) => {
      await waitFor('/health/ready')
      const { vagaId, headers } = await seedVaga(baseUrl)
      return { path: `/api/v1/candidatos?status=inscrito&vagaId=${vagaId}&sort=-criadoEm&limit=20`, headers }
    }
  },
  // Load shedding at its production default (the other scenarios turn it off): probes run no shedding
  // code, business routes one check; each against the same request without shedding.
  { name: 'ping-shedding', group: 'shedding', versus: 'ping', target: 0.97, method: 'GET', path: '/ping', env: sheddingOn },
  { name: 'candidato-read-shedding', group: 'shedding', versus: 'candidato-read', target: 0.97, method: 'GET', path: '/api/v1/candidatos/{id}', env: sheddingOn, setup: candidatoRead },
  // The embedded database against PostgreSQL: /ping runs no query, so it must cost the same; the list's
  // queries run in the database's process, so the service's event loop stays free.
  { name: 'ping-embedded', group: 'embedded', method: 'GET', path: '/ping', env: common, versus: 'ping', target: 0.95, prepare: seedEmbedded },
  {
    name: 'candidatos-list-20-embedded',
    group: 'embedded',
    method: 'GET',
    path: '/api/v1/candidatos?status=inscrito&vagaId={vaga}&sort=-criadoEm&limit=20',
    env: common,
    versus: 'candidatos-list-20',
    target: 0.50,
    setup: async ({ baseUrl, waitFor }) => {
      await waitFor('/health/ready', 200, 120_000)
      const { vagaId, headers } = await seedVaga(baseUrl)
      return { path: `/api/v1/candidatos?status=inscrito&vagaId=${vagaId}&sort=-criadoEm&limit=20`, headers }
    }
  },
  {
    // One probe at a time, while 10 clients page deep into 100,000 candidatos (each query scans them).
    name: 'health-live-slow-embedded-query',
    group: 'embedded',
    method: 'GET',
    path: '/health/live',
    env: common,
    connections: 1,
    pipelining: 1,
    maxLatencyP99Ms: 50,
    setup: async () => ({
      background: { path: '/api/v1/candidatos?offset=99980&limit=20', headers: { authorization: await authorization('candidatos:read') }, connections: 10 }
    })
  },
  { name: 'health-live', method: 'GET', path: '/health/live', env: onPostgres },
  {
    name: 'health-ready',
    method: 'GET',
    path: '/health/ready',
    env: onPostgres,
    // Against bare Fastify's /ping: what a load balancer's probe costs beside the cheapest route there is.
    target: 0.75,
    setup: whenReady
  },
  // The same route, anonymous and with a cached valid token: the cost of bearer authentication.
  { name: 'health-anonymous', group: 'health', method: 'GET', path: '/health', env: onPostgres, setup: whenReady },
  {
    name: 'health-token',
    group: 'health',
    method: 'GET',
    path: '/health',
    env: onPostgres,
    setup: async () => ({ headers: { authorization: await authorization('health:read') } })
  },
  // One versioned route, the version named three ways.
  // /api/user needs a token (access is deny by default): each request carries one, as a client's would.
  { name: 'version-url', group: 'versioning', method: 'GET', path: '/api/v2/user', env: onPostgres, setup: withToken({}) },
  { name: 'version-header', group: 'versioning', method: 'GET', path: '/api/user', env: onPostgres, target: 0.90, setup: withToken({ 'x-api-version': '2.0' }) },
  { name: 'version-media-type', group: 'versioning', method: 'GET', path: '/api/user', env: onPostgres, target: 0.90, setup: withToken({ accept: 'text/plain; x-api-version=2.0' }) },
  ...tracingScenarios
]
