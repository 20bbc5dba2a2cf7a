import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface LocalServer {
  url: string
  /** Requests served so far. */
  readonly hits: number
}

/** A real HTTP server on 127.0.0.1 and a free port, closed when the test ends. */
export async function localServer (t: Teardown, handler: (req: IncomingMessage, body: string, res: ServerResponse) => void | Promise<void>): Promise<LocalServer> {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    const chunks: Buffer[] = []
    req.on('data', chunk => chunks.push(chunk))
    req.on('end', () => { Promise.resolve(handler(req, Buffer.concat(chunks).toString(), res)).catch(() => res.destroy()) })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise(resolve => { server.closeAllConnections(); server.close(resolve) }))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, get hits () { return hits } }
}

export function sendJson (res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
