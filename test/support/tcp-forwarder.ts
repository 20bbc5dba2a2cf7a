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
