// The typed client's retries, against the running service behind a network that fails requests on
// purpose (test/support/fault-proxy.ts): a retried create never creates twice, an action is resent
// only where the answer proves nothing was done, and `maxRetries: 0` makes one attempt.
import t, { type Test } from 'tap'
import { ApiRequestError, callInfo, createV2Client, RETRY_DEFAULTS, type ClientOptions } from '../../clients/typescript/src/index.ts'
import { ALL_SCOPES, build, mintToken } from '../helper.ts'
import { everyNth, startFaultProxy, type Fault } from '../support/fault-proxy.ts'

// Short waits so hundreds of retries take seconds; the proxy answers `Retry-After: 0`.
const FAST: Partial<ClientOptions> = { maxRetries: 10, backoffMs: 5, maxBackoffMs: 50 }

async function service (t: Test) {
  // No rate limit: the retries alone would use up a window.
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0' } })
  await app.health.lifecycle.reached('serving')
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await mintToken({ scope: ALL_SCOPES, ttl: '1h' })
  const total = async (): Promise<number> =>
    (await app.inject({ url: '/api/v1/candidatos?limit=1', headers: { authorization: `Bearer ${token}` } })).json<{ total: number }>().total
  return { app, url, token, total }
}

t.test('500 creates through a network that fails a third of the requests create exactly 500 candidatos', async t => {
  const { url, token, total } = await service(t)
  const proxy = await startFaultProxy(t, url)
  proxy.choose = everyNth(3, ['drop-after', '503', 'drop-before', '429'])
  const api = createV2Client({ baseUrl: proxy.url, token, ...FAST })
  const unique = Date.now().toString(36)
  const failures: string[] = []
  const attempts: number[] = []
  let next = 0
  await Promise.all(Array.from({ length: 10 }, async () => {
    for (let i = next++; i < 500; i = next++) {
      try {
        const { error, response } = await api.POST('/api/v2/candidatos', { body: { nome: `Pessoa ${i}`, email: `p${i}.${unique}@example.com` } })
        if (error !== undefined) failures.push(`${i}: ${response.status} ${error.code}`)
        attempts.push(callInfo(response).attempts)
      } catch (error) {
        failures.push(`${i}: ${String(error)}`)
      }
    }
  }))
  t.same(failures.slice(0, 5), [], `every create answered 201 (${failures.length} did not)`)
  t.equal(await total(), 500, 'exactly 500 candidatos exist')
  const posts = proxy.seen.filter(seen => seen.method === 'POST')
  t.ok(posts.some(seen => seen.fault === 'drop-after'), 'some creates were done by the service and their answers lost on the way')
  t.ok(posts.every(seen => seen.idempotencyKey !== undefined), 'every attempt carried an Idempotency-Key')
  t.equal(new Set(posts.map(seen => seen.idempotencyKey)).size, 500, 'one key per create, kept across its retries')
  t.equal(attempts.reduce((sum, n) => sum + n, 0), posts.length, 'the attempts each call reports add up to the requests the network carried')
})

/** Fails the requests to paths matching `path` with `faults` in turn, once each, and lets the rest through. */
function failing (path: RegExp, faults: Fault[]) {
  const left = [...faults]
  return (_n: number, request: { url?: string | undefined }) => path.test(request.url ?? '') ? left.shift() : undefined
}

t.test('an action is resent after 503 or 429, which mean nothing was done, and never after a lost answer', async t => {
  const { app, url, token } = await service(t)
  const proxy = await startFaultProxy(t, url)
  const api = createV2Client({ baseUrl: proxy.url, token, ...FAST })
  const unique = Date.now().toString(36)
  const vaga = (await api.POST('/api/v2/vagas', { body: { titulo: `Dados ${unique}` } })).data!
  const candidato = async (name: string) => {
    const { data } = await api.POST('/api/v2/candidatos', { body: { nome: name, email: `${name}.${unique}@example.com` } })
    await api.POST('/api/v2/candidatos/{id}/candidatar', { params: { path: { id: data!.id } }, body: { vagaId: vaga.id } })
    return data!.id
  }
  const ana = await candidato('ana')
  const bia = await candidato('bia')

  proxy.choose = failing(/\/aprovar$/, ['503', '429'])
  const approved = await api.POST('/api/v2/candidatos/{id}/aprovar', { params: { path: { id: ana } } })
  t.equal(approved.response.status, 200, 'refused twice with nothing done, then approved')
  t.equal(callInfo(approved.response).attempts, 3, 'in three attempts')

  proxy.choose = failing(/\/aprovar$/, ['drop-after'])
  const lost = await api.POST('/api/v2/candidatos/{id}/aprovar', { params: { path: { id: bia } } }).catch((error: unknown) => error)
  t.type(lost, ApiRequestError, 'an action whose answer was lost rejects')
  t.match(lost, { attempts: 1, retryable: false }, 'after one attempt, saying a resend is not known to be safe')
  const read = await app.inject({ url: `/api/v2/candidatos/${bia}`, headers: { authorization: `Bearer ${token}` } })
  t.equal(read.json<{ status: string }>().status, 'aprovado', 'the service did approve: a resend would have answered 409')
  t.equal(proxy.seen.filter(seen => seen.path.endsWith(`${bia}/aprovar`)).length, 1, 'and it was sent once')
})

t.test('maxRetries: 0 makes one attempt; the default makes four; Retry-After, the deadline and the attempt timeout bound the waits', async t => {
  const { url, token } = await service(t)
  const proxy = await startFaultProxy(t, url, '1')
  const always503 = () => '503' as const
  const sent = () => proxy.seen.length

  proxy.choose = always503
  const once = await createV2Client({ baseUrl: proxy.url, token, maxRetries: 0 }).GET('/api/v2/vagas')
  t.equal(once.response.status, 503, 'maxRetries: 0 answers the first refusal')
  t.same(callInfo(once.response), { attempts: 1, requestId: null, retryable: true }, 'after one attempt, saying a later resend may succeed')
  t.equal(sent(), 1, 'one request went out')

  proxy.seen.length = 0
  proxy.choose = failing(/vagas/, ['503'])
  let started = Date.now()
  const waited = await createV2Client({ baseUrl: proxy.url, token, backoffMs: 5 }).GET('/api/v2/vagas')
  t.equal(waited.response.status, 200, 'a refusal with Retry-After: 1 is retried')
  t.ok(Date.now() - started >= 1000, 'no sooner than Retry-After said')

  const proxyLater = await startFaultProxy(t, url, '30')
  proxyLater.choose = always503
  started = Date.now()
  const bounded = await createV2Client({ baseUrl: proxyLater.url, token, deadlineMs: 5000 }).GET('/api/v2/vagas')
  t.equal(callInfo(bounded.response).attempts, 1, 'a Retry-After past the deadline is not waited for')
  t.ok(Date.now() - started < 5000, 'the call ends within its deadline')

  const proxyNow = await startFaultProxy(t, url, '0')
  proxyNow.choose = () => '503'
  const defaults = await createV2Client({ baseUrl: proxyNow.url, token, backoffMs: 5 }).GET('/api/v2/vagas')
  t.equal(callInfo(defaults.response).attempts, RETRY_DEFAULTS.maxRetries + 1, `by default ${RETRY_DEFAULTS.maxRetries} retries`)

  proxyNow.choose = failing(/vagas/, ['hang'])
  const slow = await createV2Client({ baseUrl: proxyNow.url, token, backoffMs: 5, attemptTimeoutMs: 500 }).GET('/api/v2/vagas')
  t.equal(slow.response.status, 200, 'an attempt that never answers times out and is retried')
  t.equal(callInfo(slow.response).attempts, 2, 'in two attempts')
})

t.test('a problem carries its code, and the call its request id, attempts and whether a resend could help', async t => {
  const { url, token } = await service(t)
  const api = createV2Client({ baseUrl: url, token })
  const { error, response } = await api.GET('/api/v2/vagas/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } })
  t.equal(error?.code, 'NotFound', 'the typed problem')
  t.same(callInfo(response), { attempts: 1, requestId: error?.requestId, retryable: false }, 'one attempt, the request id of the problem, not worth resending')
})
