// One attempt against real sockets: redirects are failures, a silent receiver times out, and a
// target that is not public is never connected to unless private targets are allowed.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendDelivery } from '../../src/webhooks/send-delivery.ts'

async function server (t: { teardown: (fn: () => unknown) => void }, handle: Parameters<typeof createServer>[1]) {
  const requests: string[] = []
  const listening = createServer((request, response) => { requests.push(request.url ?? ''); handle!(request, response) })
  await new Promise<void>(resolve => listening.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { listening.closeAllConnections(); listening.close() })
  return { requests, url: (path: string) => `http://127.0.0.1:${(listening.address() as AddressInfo).port}${path}` }
}

const send = (url: string, overrides: Partial<Parameters<typeof sendDelivery>[0]> = {}) =>
  sendDelivery({ url, headers: { 'webhook-id': 'msg_1' }, body: '{}', timeoutMs: 5000, allowPrivateTargets: true, ...overrides })

t.test('a 2xx is a success; another status is a failure with its code', async t => {
  const receiver = await server(t, (request, response) => { response.writeHead(request.url === '/ok' ? 200 : 500).end() })
  t.match(await send(receiver.url('/ok')), { ok: true, statusCode: 200 })
  t.match(await send(receiver.url('/fail')), { ok: false, statusCode: 500, error: 'status' })
})

t.test('a redirect is a failure, and is not followed', async t => {
  const receiver = await server(t, (request, response) => {
    if (request.url === '/moved') response.writeHead(307, { location: '/elsewhere' }).end()
    else response.writeHead(200).end()
  })
  t.match(await send(receiver.url('/moved')), { ok: false, statusCode: 307, error: 'redirect' })
  t.same(receiver.requests, ['/moved'], 'the new location was never asked for')
})

t.test('a receiver that does not answer in time is a timeout', async t => {
  const receiver = await server(t, () => {})
  t.match(await send(receiver.url('/slow'), { timeoutMs: 200 }), { ok: false, error: 'timeout' })
})

t.test('a private target is refused at delivery time unless allowed', async t => {
  const receiver = await server(t, (_request, response) => { response.writeHead(200).end() })
  const local = receiver.url('/hook')
  t.match(await send(local, { allowPrivateTargets: false }), { ok: false, error: 'refused-target' }, 'by address')
  t.match(await send(local.replace('127.0.0.1', 'localhost'), { allowPrivateTargets: false }), { ok: false, error: 'refused-target' }, 'by a name that resolves to loopback')
  t.same(receiver.requests, [], 'nothing reached it')
  t.match(await send(local), { ok: true }, 'allowed by the setting')
})
