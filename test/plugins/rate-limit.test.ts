import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { SignJWT } from 'jose'
import { bearer, build, serviceUrl, TEST_JWT_SECRET, uniqueRedisPrefix } from '../helper.ts'
import { closedPort } from '../support/closed-port.ts'
import { eventually } from '../support/eventually.ts'
import { startTcpRelay } from '../support/tcp-relay.ts'

// A business-like route beside the service's own: anonymous callers allowed, tokens verified when sent.
function thingsRoute (app: FastifyInstance): void {
  app.get('/things', { config: { auth: 'optional' } }, async () => ({ ok: true }))
}

async function get (app: FastifyInstance, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: '/things', headers })
}

// The tests start from a connected client (a busy machine may have dropped its first connection).
async function untilRedisReady (t: Pick<Test, 'equal'>, app: FastifyInstance): Promise<void> {
  t.equal(await eventually(() => app.redis?.ping()), 'PONG', 'the instance is connected to Redis')
}

t.test('without Redis: the budget per window, the headers, and the 429 problem', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW: '60000' }, extraRoutes: thingsRoute })
  for (const remaining of ['2', '1', '0']) {
    const res = await get(app)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['ratelimit-limit'], '3')
    t.equal(res.headers['ratelimit-remaining'], remaining)
    t.ok(Number(res.headers['ratelimit-reset']) > 0 && Number(res.headers['ratelimit-reset']) <= 60, 'reset is within the window')
  }
  const refused = await get(app)
  t.equal(refused.statusCode, 429)
  t.match(refused.headers['content-type'], /^application\/problem\+json/)
  t.equal(refused.headers['ratelimit-limit'], '3')
  t.equal(refused.headers['ratelimit-remaining'], '0')
  t.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60, 'Retry-After in seconds')
  t.equal(refused.headers['retry-after'], refused.headers['ratelimit-reset'])
  t.match(refused.json(), { status: 429, code: 'RateLimited', title: 'Too Many Requests', instance: '/things' })
})

t.test('/ping and the health paths are never limited and carry no rate-limit headers', async t => {
  const app = await build(t, {
    env: { RATE_LIMIT_MAX: '1' },
    extraRoutes: thingsRoute
  })
  for (let i = 0; i < 5; i++) {
    for (const url of ['/ping', '/health/live']) {
      const res = await app.inject({ method: 'GET', url })
      t.equal(res.statusCode, 200, `${url} #${i + 1}`)
      t.notOk(res.headers['ratelimit-limit'], `${url} has no rate-limit header`)
    }
  }
  t.equal((await get(app)).statusCode, 200, 'the probes used none of the budget')
  t.equal((await get(app)).statusCode, 429)
})

t.test('a token that names only its client counts against that client, never the address or a subject of the same name', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '1' }, extraRoutes: thingsRoute })
  // Client-credentials tokens name only their client (no sub): signed here without the helper's default subject.
  const clientToken = async (clientId: string): Promise<{ authorization: string }> => ({
    authorization: `Bearer ${await new SignJWT({ client_id: clientId }).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(TEST_JWT_SECRET))}`
  })
  t.equal((await get(app, await clientToken('alice'))).statusCode, 200)
  t.equal((await get(app, await clientToken('bob'))).statusCode, 200, 'client bob, same address, has his own budget')
  t.equal((await get(app, await bearer({ sub: 'alice' }))).statusCode, 200, 'subject alice is not client alice')
  t.equal((await get(app, await clientToken('alice'))).statusCode, 429, 'client alice is out')
})

t.test('the key is the token subject when a verified token is sent, else the client address', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '2' }, extraRoutes: thingsRoute })
  const alice = await bearer({ sub: 'alice' })
  const bob = await bearer({ sub: 'bob' })
  t.equal((await get(app, alice)).statusCode, 200)
  t.equal((await get(app, await bearer({ sub: 'alice' }))).statusCode, 200, 'another token of the same subject shares the budget')
  t.equal((await get(app, alice)).statusCode, 429, 'alice is out')
  t.equal((await get(app, bob)).statusCode, 200, 'bob, same address, has his own budget')
  t.equal((await get(app)).statusCode, 200, 'an anonymous caller at that address has its own budget')
  t.equal((await get(app)).statusCode, 200)
  t.equal((await get(app)).statusCode, 429)
  // A forged token names no caller: it counts against the address, which is out, never against bob.
  const forged = await get(app, { authorization: `Bearer ${(await bearer({ sub: 'bob' })).authorization.slice(7, -4)}AAAA` })
  t.equal(forged.statusCode, 429, 'a refused token counts against the address')
  t.equal((await get(app, bob)).statusCode, 200, 'and not against the subject it names')
})

t.test('client addresses follow TRUST_PROXY', async t => {
  const trusting = await build(t, { env: { RATE_LIMIT_MAX: '1', TRUST_PROXY: '127.0.0.1' }, extraRoutes: thingsRoute })
  t.equal((await get(trusting, { 'x-forwarded-for': '203.0.113.1' })).statusCode, 200)
  t.equal((await get(trusting, { 'x-forwarded-for': '203.0.113.2' })).statusCode, 200, 'behind a trusted proxy each client has a budget')
  t.equal((await get(trusting, { 'x-forwarded-for': '203.0.113.1' })).statusCode, 429)

  const direct = await build(t, { env: { RATE_LIMIT_MAX: '1' }, extraRoutes: thingsRoute })
  t.equal((await get(direct, { 'x-forwarded-for': '203.0.113.1' })).statusCode, 200)
  t.equal((await get(direct, { 'x-forwarded-for': '203.0.113.2' })).statusCode, 429, 'an untrusted X-Forwarded-For cannot buy a new budget')
})

t.test('RATE_LIMIT_MAX=0 turns rate limiting off', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0' }, extraRoutes: thingsRoute })
  for (let i = 0; i < 5; i++) t.equal((await get(app)).statusCode, 200)
  t.notOk((await get(app)).headers['ratelimit-limit'])
})

t.test('with Redis: two instances share one budget', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const prefix = uniqueRedisPrefix(t, url, 'rate-limit')
  // This test is about sharing, not faults: a busy test machine may hold an answer past the 100 ms default.
  const env = { REDIS_URL: url, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW: '30000', REDIS_COMMAND_TIMEOUT_MS: '5000' }
  const one = await build(t, { env, extraRoutes: thingsRoute })
  const two = await build(t, { env, extraRoutes: thingsRoute })
  await untilRedisReady(t, one)
  await untilRedisReady(t, two)
  const token = await bearer({ sub: 'shared-user' })
  const statuses = []
  for (const app of [one, two, one, two, one, two]) statuses.push((await get(app, token)).statusCode)
  t.same(statuses, [200, 200, 200, 200, 429, 429], 'the fifth request is refused whichever instance takes it')

  const raw = new Redis(url)
  t.teardown(() => raw.disconnect())
  const keys = await raw.keys(`${prefix}rate-limit:*`)
  t.same(keys, [`${prefix}rate-limit:caller:shared-user`], 'one counter under the configured prefix')
  const ttl = await raw.pttl(keys[0])
  t.ok(ttl > 0 && ttl <= 30_000, 'the counter expires with the window')
  await raw.del(keys)
})

t.test('Redis unreachable: requests are never failed, counting falls back to this instance', async t => {
  const port = await closedPort()
  const lines: string[] = []
  const app = await build(t, {
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '3', LOG_LEVEL: 'warn' },
    extraRoutes: thingsRoute,
    logStream: { write: line => { lines.push(line) } }
  })
  const started = Date.now()
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push((await get(app)).statusCode)
  t.same(statuses, [200, 200, 200, 429], 'the local limit still holds')
  t.ok(Date.now() - started < 5_000, 'no request waited long for Redis')
  t.equal(lines.filter(line => line.includes('counts in this process only')).length, 1, 'one warning for the outage')
})

t.test('a Redis that stops answering delays no request beyond a short bound', async t => {
  const url = serviceUrl(t, 'TEST_REDIS_URL')
  if (url === undefined) return
  const target = new URL(url)
  const relay = await startTcpRelay(target.hostname, Number(target.port || 6379))
  t.teardown(() => relay.close())
  const app = await build(t, {
    env: { REDIS_URL: `redis://127.0.0.1:${relay.port}`, REDIS_KEY_PREFIX: uniqueRedisPrefix(t, url, 'rate-limit-hang'), RATE_LIMIT_MAX: '11' },
    extraRoutes: thingsRoute
  })
  await untilRedisReady(t, app)
  t.equal((await get(app)).statusCode, 200, 'counted in Redis')
  relay.hang()
  const started = Date.now()
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) statuses.push((await get(app)).statusCode)
  const elapsed = Date.now() - started
  t.ok(statuses.every(status => status === 200), `every request was served: ${statuses.join(' ')}`)
  // Asking Redis on each request would send ten commands into the void and wait 100 ms for each.
  t.ok(relay.swallowed() <= 3, `${relay.swallowed()} command(s) sent to the hung Redis for ten requests (${elapsed} ms in all)`)
  const more: number[] = []
  for (let i = 0; i < 2; i++) more.push((await get(app)).statusCode)
  t.ok(more.includes(429), `the local limit holds: ${more.join(' ')}`)
})
