// The webhook receivers of `npm run bench:workload`'s webhooks section: plain node:http servers on
// loopback, one per subscription, answering 204 at once. They run in a process of their own on the
// load generator's core (receiving is the integrator's work, not the service's), note when each
// delivery arrived, and verify every one with the `standardwebhooks` package when its results are
// taken, after the load: verifying as they arrive would take the load generator's core from it. The orchestrator talks
// to them over the IPC channel (ReceiversRequest in, ReceiversMessage out).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { Webhook } from 'standardwebhooks'

export type ReceiversRequest =
  /** Secrets of new subscriptions, by their URL's path (each subscription has its own). */
  | { type: 'subscribed', secrets: Record<string, string> }
  /** How many distinct events with an id above `after` the given paths have received so far. */
  | { type: 'count', paths: string[], after: number }
  /** What the given paths received until now; they start again from nothing (a late delivery still verifies). */
  | { type: 'take', paths: string[] }

export interface Arrivals {
  /** Per path: the event id of each first delivery and when it arrived (ms since the epoch). */
  first: Record<string, Array<[number, number]>>
  /** Deliveries of an event the path had already received. */
  repeated: number
  /** Deliveries whose signature did not verify with their subscription's secret, or to a path of none. */
  unverified: number
}

export type ReceiversMessage =
  | { type: 'listening', origins: string[] }
  | { type: 'subscribed' }
  | { type: 'count', received: number }
  | { type: 'take', arrivals: Arrivals }

interface Received { body: string, headers: Record<string, string>, arrivedAt: number }
interface Inbox { verifier: Webhook, received: Received[], first: Map<number, number>, repeated: number, unverified: number }

const count = Number(process.argv[2] ?? 10)
// Where bench/bare-sender.ts posts: answered, neither verified nor counted.
const barePath = process.argv[3]
const inboxes = new Map<string, Inbox>()
// Deliveries to a path no subscription was made with.
let strays = 0

const send = (message: ReceiversMessage): void => { process.send!(message) }

function receive (request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    // The wall clock, as the event's `em` is (the same machine's clock, through PostgreSQL).
    const arrivedAt = performance.timeOrigin + performance.now()
    response.writeHead(204).end()
    if (request.url === barePath) return
    const inbox = inboxes.get(request.url ?? '')
    if (inbox === undefined) strays++
    else inbox.received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers as Record<string, string>, arrivedAt })
  })
}

/** Verifies what the inbox received since the last look, and notes each event's first arrival. */
function verifyReceived (inbox: Inbox): void {
  for (const { body, headers, arrivedAt } of inbox.received) {
    try {
      inbox.verifier.verify(body, headers)
    } catch {
      inbox.unverified++
      continue
    }
    const { data } = JSON.parse(body) as { data: { id: number } }
    if (inbox.first.has(data.id)) inbox.repeated++
    else inbox.first.set(data.id, arrivedAt)
  }
  inbox.received = []
}

// One port per subscription, as separate integrators would have.
const origins: string[] = []
for (let i = 0; i < count; i++) {
  const server = createServer(receive)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
}

process.on('message', (request: ReceiversRequest) => {
  if (request.type === 'subscribed') {
    for (const [path, secret] of Object.entries(request.secrets)) inboxes.set(path, { verifier: new Webhook(secret), received: [], first: new Map(), repeated: 0, unverified: 0 })
    send({ type: 'subscribed' })
  } else if (request.type === 'count') {
    let received = 0
    for (const path of request.paths) {
      const inbox = inboxes.get(path)
      if (inbox === undefined) continue
      verifyReceived(inbox)
      for (const id of inbox.first.keys()) if (id > request.after) received++
    }
    send({ type: 'count', received })
  } else {
    const arrivals: Arrivals = { first: {}, repeated: 0, unverified: strays }
    strays = 0
    for (const path of request.paths) {
      const inbox = inboxes.get(path)
      if (inbox === undefined) continue
      verifyReceived(inbox)
      arrivals.first[path] = [...inbox.first]
      arrivals.repeated += inbox.repeated
      arrivals.unverified += inbox.unverified
      Object.assign(inbox, { received: [], first: new Map(), repeated: 0, unverified: 0 })
    }
    send({ type: 'take', arrivals })
  }
})
process.on('disconnect', () => process.exit(0))
send({ type: 'listening', origins })
