import t from 'tap'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { connect } from 'node:http2'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { credentials, makeClientConstructor, status as GrpcStatus, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js'
import { service as healthService } from 'grpc-health-check'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'

interface HealthClient extends Client {
  check: (request: { service: string }, callback: (error: ServiceError | null, response?: { status: string }) => void) => void
  watch: (request: { service: string }) => ClientReadableStream<{ status: string }>
}

const HealthClientConstructor = makeClientConstructor(healthService, 'grpc.health.v1.Health') as unknown as new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: Record<string, number>) => HealthClient

function clientFor (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance): HealthClient {
  const client = new HealthClientConstructor(`127.0.0.1:${app.grpcHealthPort}`, credentials.createInsecure())
  t.teardown(() => client.close())
  return client
}

/** A client on a connection of its own, not shared with the other clients of the process. */
function ownConnection (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance): HealthClient {
  const client = new HealthClientConstructor(`127.0.0.1:${app.grpcHealthPort}`, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
  t.teardown(() => client.close())
  return client
}

function check (client: HealthClient, service: string): Promise<{ status?: string, code?: number }> {
  return new Promise(resolve => client.check({ service }, (error, response) => {
    resolve(error === null ? { status: response?.status } : { code: error.code })
  }))
}

t.test('without GRPC_PORT there is no gRPC server', async t => {
  const app = await build(t)
  t.equal(app.grpcHealthPort, null)
})

t.test('Check answers from readiness; an unknown service is NOT_FOUND; Watch streams the changes', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0', HEALTH_REFRESH_INTERVAL_MS: '200' } })
  t.type(app.grpcHealthPort, 'number')
  const client = clientFor(t, app)

  const updates: string[] = []
  const stream = client.watch({ service: '' })
  stream.on('data', (message: { status: string }) => updates.push(message.status))
  stream.on('error', () => {})

  await eventually(async () => { assert.equal((await check(client, '')).status, 'SERVING') }, { interval: 100 })
  t.same(await check(client, 'recrutamento.Api'), { status: 'SERVING' })
  t.same(await check(client, 'no.such.Service'), { code: GrpcStatus.NOT_FOUND })

  app.health.beginShutdown()
  t.same(await check(client, ''), { status: 'NOT_SERVING' }, 'NOT_SERVING from the first moment of shutdown')
  await eventually(() => { assert.equal(updates.at(-1), 'NOT_SERVING', `Watch sent ${updates.join(', ')}`) }, { timeout: 20_000, interval: 20 })
  t.ok(updates.includes('SERVING'), `Watch saw SERVING (${updates.join(', ')})`)
  t.equal(updates.at(-1), 'NOT_SERVING', 'and then NOT_SERVING')
  stream.cancel()
})

t.test('a database that is down makes Check NOT_SERVING', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0', HEALTH_REFRESH_INTERVAL_MS: '200', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' } })
  const client = clientFor(t, app)
  // The database check has run and failed: NOT_SERVING for the database, not merely for the boot.
  await eventually(() => { assert.equal(app.health.latest('database')?.status, 'Unhealthy') }, { timeout: 20_000, interval: 50 })
  t.same(await check(client, ''), { status: 'NOT_SERVING' })
})

/** The heap the process keeps after a full collection, in bytes. */
function heapKept (): number {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * Opens a Watch and resolves with its first message's status, or the code it ended with. The stream
 * is left as the server leaves it (a client that cancels thousands of streams the server has already
 * ended gets its connection closed).
 */
function firstOfWatch (client: HealthClient, service: string): Promise<string | number> {
  return new Promise(resolve => {
    const stream = client.watch({ service })
    stream.once('data', (message: { status: string }) => resolve(message.status))
    stream.once('error', (error: ServiceError) => resolve(error.code))
  })
}

t.test('Watch and Check calls naming services it does not serve leave nothing behind, however large the names', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0' } })
  // Each flood on a connection of its own: HTTP/2 throttles a connection that has just sent 300 MiB.
  const [large, small] = [ownConnection(t, app), ownConnection(t, app)] as const
  await eventually(async () => { assert.equal((await check(small, '')).status, 'SERVING') }, { interval: 100 })
  const before = heapKept()

  const answers = { large: new Map<string | number, number>(), small: new Map<string | number, number>() }
  const count = (kind: 'large' | 'small', answer: string | number) => answers[kind].set(answer, (answers[kind].get(answer) ?? 0) + 1)
  // 300 names of 1 MiB each, ten calls at a time: refused for their size before they are decoded.
  for (let batch = 0; batch < 30; batch++) {
    const calls = Array.from({ length: 10 }, (_, i) => firstOfWatch(large, `${batch}.${i}.`.padEnd(1 << 20, randomUUID())))
    for (const answer of await Promise.all(calls)) count('large', answer)
  }
  // 2,000 distinct names of 1,000 bytes, under the limit: SERVICE_UNKNOWN, then the end of the stream.
  for (let batch = 0; batch < 20; batch++) {
    const calls = Array.from({ length: 100 }, () => firstOfWatch(small, randomUUID().padEnd(1000, 'x')))
    for (const answer of await Promise.all(calls)) count('small', answer)
  }
  t.equal((await check(small, 'a'.repeat(1000))).code, GrpcStatus.NOT_FOUND)
  t.same(Object.fromEntries(answers.large), { [GrpcStatus.RESOURCE_EXHAUSTED]: 300 })
  t.same(Object.fromEntries(answers.small), { SERVICE_UNKNOWN: 2000 })
  t.same(await check(small, ''), { status: 'SERVING' }, 'the server still answers')

  const grown = heapKept() - before
  t.ok(grown < 20 * 1024 * 1024, `the heap grew by ${(grown / 1024 / 1024).toFixed(1)} MiB`)
})

t.test('open Watch streams are bounded in all (GRPC_MAX_WATCHES)', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0', GRPC_MAX_WATCHES: '5' } })
  const client = clientFor(t, app)
  await eventually(async () => { assert.equal((await check(client, '')).status, 'SERVING') }, { interval: 100 })
  const answers = await Promise.all(Array.from({ length: 7 }, () => new Promise<string | number>(resolve => {
    const stream = client.watch({ service: '' })
    stream.once('data', (message: { status: string }) => resolve(message.status))
    stream.once('error', (error: ServiceError) => resolve(error.code))
    t.teardown(() => stream.cancel())
  })))
  t.same(answers.filter(answer => answer === 'SERVING').length, 5, 'five Watch streams run')
  t.same(answers.filter(answer => answer === GrpcStatus.RESOURCE_EXHAUSTED).length, 2, 'the other two are refused')
})

t.test('the server announces GRPC_MAX_CONCURRENT_STREAMS as the streams a connection may open', async t => {
  const app = await build(t, { env: { GRPC_PORT: '0', GRPC_MAX_CONCURRENT_STREAMS: '3' } })
  const session = connect(`http://127.0.0.1:${app.grpcHealthPort}`)
  t.teardown(() => session.close())
  session.on('error', () => {})
  const [settings] = await once(session, 'remoteSettings') as [{ maxConcurrentStreams?: number }]
  t.equal(settings.maxConcurrentStreams, 3)
})
