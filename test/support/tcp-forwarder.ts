import { createServer, connect, type Server, type Socket } from 'node:net'

/** A TCP forwarder to a real server that can be switched off and on, to lose and regain a dependency. */
export function tcpForwarder (target: URL, defaultPort: number) {
  let server: Server | undefined
  const sockets = new Set<Socket>()
  const port = { value: 0 }
  return {
    port,
    async up () {
      server = createServer(client => {
        const upstream = connect(Number(target.port || defaultPort), target.hostname)
        for (const s of [client, upstream]) { sockets.add(s); s.on('error', () => {}); s.on('close', () => sockets.delete(s)) }
        client.pipe(upstream).pipe(client)
      })
      await new Promise<void>(resolve => server?.listen(port.value, '127.0.0.1', resolve))
      port.value = (server.address() as { port: number }).port
    },
    async down () {
      for (const s of sockets) s.destroy()
      await new Promise(resolve => server?.close(resolve))
    }
  }
}

/**
 * A running forwarder to the service at `url`, switched off when the test ends, and `url` pointed at
 * it: the app under test given that URL reaches the service only while the forwarder is up.
 */
export async function forwardedService (t: { teardown: (fn: () => unknown) => void }, url: string, defaultPort: number) {
  const proxy = tcpForwarder(new URL(url), defaultPort)
  await proxy.up()
  t.teardown(() => proxy.down())
  const viaProxy = new URL(url)
  viaProxy.port = String(proxy.port.value)
  return { proxy, url: viaProxy.toString() }
}
