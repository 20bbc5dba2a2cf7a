// A failing network in front of a running service, on loopback: an HTTP proxy that fails the
// requests a test chooses, the way a real path fails, and forwards the rest untouched.
import { createServer, request as forward, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * How a chosen request fails: `drop-before` closes the connection without forwarding (the service
 * never saw it); `drop-after` forwards it, lets the service answer, then closes the connection
 * without passing the answer on (the service did the work, the client cannot know); `503` and `429`
 * answer at once with `Retry-After`, as the service does when it did nothing; `hang` never answers.
 */
export type Fault = 'drop-before' | 'drop-after' | '503' | '429' | 'hang'

export interface Seen { method: string, path: string, idempotencyKey: string | undefined, fault: Fault | undefined }

export interface FaultProxy {
  url: string
  /** Every request that reached the proxy, in order, with the fault it got. */
  seen: Seen[]
  /** Picks the fault of the n-th request (from 0), or none. */
  choose: (n: number, request: IncomingMessage) => Fault | undefined
}

/** Fails every `every`-th request, cycling through `faults`: `every: 3` fails a third. */
export function everyNth (every: number, faults: readonly Fault[]): FaultProxy['choose'] {
  return n => n % every === every - 1 ? faults[Math.floor(n / every) % faults.length] : undefined
}

export async function startFaultProxy (t: { teardown: (fn: () => unknown) => void }, target: string, retryAfter = '0'): Promise<FaultProxy> {
  const upstream = new URL(target)
  const proxy: FaultProxy = { url: '', seen: [], choose: () => undefined }
  const server: Server = createServer((request, response) => {
    const fault = proxy.choose(proxy.seen.length, request)
    const key = request.headers['idempotency-key']
    proxy.seen.push({ method: request.method ?? '', path: request.url ?? '', idempotencyKey: typeof key === 'string' ? key : undefined, fault })
    if (fault === 'drop-before') return request.socket.destroy()
    if (fault === 'hang') return request.resume()
    if (fault === '503' || fault === '429') {
      request.resume()
      return response.writeHead(Number(fault), { 'retry-after': retryAfter, 'content-type': 'application/problem+json' })
        .end(JSON.stringify({ type: 'about:blank', title: 'Try again', status: Number(fault) }))
    }
    const out = forward({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, answer => {
      if (fault === 'drop-after') {
        answer.resume()
        return answer.on('end', () => request.socket.destroy())
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    })
    out.on('error', () => request.socket.destroy())
    request.pipe(out)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  })
  return proxy
}
