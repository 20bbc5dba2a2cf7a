import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { openLoop } from '../../bench/open-loop.ts'

t.test('open-loop latency never counts from before the request left: a fast server gets no negative latency', async t => {
  const server = createServer((_request, response) => { response.end('pong') })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.close() })
  const { port } = server.address() as AddressInfo
  // 400 requests due 2.5 ms apart: the loop sends a request whose due time is under 1 ms away at once.
  const result = await openLoop({ baseUrl: `http://127.0.0.1:${port}`, connections: 4, durationSeconds: 1, requestsPerSecond: 400 },
    () => ({ method: 'GET', path: '/', headers: {} }))
  t.equal(result.total, 400)
  t.equal(result.non2xx, 0)
  t.ok(result.latencyP50 >= 0, `median latency ${result.latencyP50} ms is not negative`)
  t.ok(result.latencyP99 >= result.latencyP50)
})
