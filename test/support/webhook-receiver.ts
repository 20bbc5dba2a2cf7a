// A webhook receiver as an integrator would write it: every delivery checked with the
// `standardwebhooks` package alone, nothing of ours. Tests choose each answer and read what arrived.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface Delivery {
  id: string
  headers: IncomingHttpHeaders
  body: string
  /** When it arrived, in ms since the epoch. */
  receivedAt: number
  /** Whether the signature verified with the secret the receiver held when it arrived. */
  verified: boolean
  payload: { type: string, timestamp: string, data: { id: number, tipo: string, sujeito: { tipo: string, id: string }, dados: unknown } }
  /** While the receiver holds its answer and the sender still waits for it: the delivery is in flight. */
  pending: boolean
  /** The status answered, once the answer went out; never set when the sender hung up first. */
  answered?: number
}

export interface Answer { status: number, headers?: Record<string, string> }

/** A connection a sender opened: what it sent has all arrived once it is closed. */
export interface Connection {
  /** When its latest delivery arrived; undefined before the first. */
  lastArrivalAt?: number
  closed: boolean
}

export interface Receiver {
  url: string
  deliveries: Delivery[]
  /** Every connection senders opened, in the order they were accepted. */
  connections: Connection[]
  /** The secret deliveries are verified with (set it after creating the subscription, and after rotating). */
  secret: string
  /** How the receiver answers the next delivery; 204 by default. A promise holds the answer until it settles. */
  answer: (delivery: Delivery) => Answer | Promise<Answer>
  close: () => Promise<void>
}

/** Listens on `port` (any free one by default) on loopback. */
export async function startReceiver (t: { teardown: (fn: () => unknown) => void }, port = 0): Promise<Receiver> {
  const receiver: Receiver = { url: '', deliveries: [], connections: [], secret: '', answer: () => ({ status: 204 }), close: async () => {} }
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let verified = true
      try {
        new Webhook(receiver.secret).verify(body, request.headers as Record<string, string>)
      } catch {
        verified = false
      }
      const delivery: Delivery = { id: String(request.headers['webhook-id']), headers: request.headers, body, receivedAt: Date.now(), verified, payload: JSON.parse(body), pending: true }
      receiver.deliveries.push(delivery)
      connectionOf.get(request.socket)!.lastArrivalAt = delivery.receivedAt
      response.on('close', () => { delivery.pending = false })
      const { status, headers } = await receiver.answer(delivery)
      if (response.destroyed) return
      response.writeHead(status, headers).end(() => { delivery.answered = status })
    })
  })
  const connectionOf = new WeakMap<Socket, Connection>()
  server.on('connection', (socket: Socket) => {
    const connection: Connection = { closed: false }
    connectionOf.set(socket, connection)
    receiver.connections.push(connection)
    socket.on('close', () => { connection.closed = true })
  })
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  receiver.close = async () => { await new Promise(resolve => server.close(resolve)) }
  server.unref()
  t.teardown(receiver.close)
  return receiver
}
