import { connect, createServer, type Server, type Socket } from 'node:net'

export interface TcpRelay {
  /** Where clients connect instead of the target. */
  port: number
  /** Traffic is swallowed in both directions: the target looks hung. */
  hang: () => void
  /** How many writes from clients were swallowed since hang(). */
  swallowed: () => number
  /** Open connections are reset and new ones refused: the target looks down. */
  cut: () => Promise<void>
  /** Accepts and forwards again on the same port. */
  restore: () => Promise<void>
  close: () => Promise<void>
}

/**
 * A TCP relay in front of a real service (PostgreSQL, Redis) that a test can hang or cut:
 * a real network fault between one instance and its dependency, the others untouched.
 */
export async function startTcpRelay (targetHost: string, targetPort: number): Promise<TcpRelay> {
  let hanging = false
  let swallowed = 0
  const sockets = new Set<Socket>()
  let port = 0

  function relay (client: Socket): void {
    const upstream = connect(targetPort, targetHost)
    sockets.add(client).add(upstream)
    client.on('data', chunk => {
      if (hanging) swallowed++
      else upstream.write(chunk)
    })
    upstream.on('data', chunk => { if (!hanging) client.write(chunk) })
    const end = (): void => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  }

  async function listen (server: Server, on: number): Promise<number> {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(on, '127.0.0.1', resolve))
    return (server.address() as { port: number }).port
  }

  let server = createServer(relay)
  port = await listen(server, 0)

  async function stop (): Promise<void> {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    await new Promise(resolve => server.close(resolve))
  }

  return {
    get port () { return port },
    hang: () => { hanging = true },
    swallowed: () => swallowed,
    cut: stop,
    restore: async () => {
      hanging = false
      server = createServer(relay)
      await listen(server, port)
    },
    close: stop
  }
}
