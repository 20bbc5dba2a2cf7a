import t from 'tap'
import assert from 'node:assert/strict'
import { credentials, makeClientConstructor, status as GrpcStatus, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js'
import { service as healthService } from 'grpc-health-check'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.js'
import { eventually } from '../support/eventually.js'

interface HealthClient extends Client {
  check: (request: { service: string }, callback: (error: ServiceError | null, response?: { status: string }) => void) => void
  watch: (request: { service: string }) => ClientReadableStream<{ status: string }>
}

const HealthClientConstructor = makeClientConstructor(healthService, 'grpc.health.v1.Health') as unknown as new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => HealthClient

function clientFor (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance): HealthClient {
  const client = new HealthClientConstructor(`127.0.0.1:${app.grpcHealthPort}`, credentials.createInsecure())
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

  await eventually(async () => { assert.equal((await check(client, '')).status, 'SERVING') }, { timeout: 20_000, interval: 100 })
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
