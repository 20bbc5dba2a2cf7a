import t from 'tap'
import { connect } from 'node:net'
import { mintToken } from '../helper.js'
import { startServerProcess, untilReady } from '../support/server-process.js'

/** Starts a POST whose body arrives in two parts, so the request stays in flight until `finish` is called. */
async function slowRequest (url: string, token: string) {
  const { hostname, port } = new URL(url)
  const body = JSON.stringify({ service: 'mailer', instanceId: 'slow-1', status: 'alive', timestamp: new Date().toISOString() })
  const socket = connect(Number(port), hostname)
  await new Promise<void>(resolve => socket.once('connect', resolve))
  let response = ''
  socket.setEncoding('utf8')
  socket.on('data', chunk => { response += chunk })
  const closed = new Promise<void>(resolve => socket.on('close', () => resolve()))
  socket.write(`POST /heartbeats HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`)
  socket.write(body.slice(0, 20))
  return {
    async finish (): Promise<string> {
      socket.write(body.slice(20))
      await closed
      return response
    }
  }
}

t.test('SIGTERM: ready turns 503 at once, a slow request in flight completes, the process exits 0', async t => {
  const server = await startServerProcess(t, { SHUTDOWN_DRAIN_DELAY_MS: '1500', HEALTH_REFRESH_INTERVAL_MS: '200' })
  await untilReady(server.url)
  const inFlight = await slowRequest(server.url, await mintToken({ scope: 'heartbeat:write' }))
  await new Promise(resolve => setTimeout(resolve, 100))

  server.child.kill('SIGTERM')
  await new Promise(resolve => setTimeout(resolve, 200))
  const ready = await fetch(`${server.url}/health/ready`)
  t.equal(ready.status, 503, 'readiness is 503 right after SIGTERM')
  t.equal(((await ready.json()) as { status: string }).status, 'NotReady')
  t.equal((await fetch(`${server.url}/health/live`)).status, 200, 'still alive while draining')

  // Past the drain delay the listener closes; the request in flight is still answered.
  await new Promise(resolve => setTimeout(resolve, 1600))
  const response = await inFlight.finish()
  t.match(response, /^HTTP\/1\.1 204 /, 'the slow request completed')
  t.equal(await server.exited, 0, 'exit code 0')
  t.match(server.output(), /shutting down/)
  t.match(server.output(), /"msg":"shut down"/)
})

t.test('SIGTERM without a drain delay: the process exits 0 promptly', async t => {
  const server = await startServerProcess(t)
  await untilReady(server.url)
  const started = Date.now()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  t.ok(Date.now() - started < 5000, `exited in ${Date.now() - started} ms`)
})
