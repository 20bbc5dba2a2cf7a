// The yardstick of a delivery's CPU: what the same POSTs cost a bare client that does nothing else.
// `node bench/bare-sender.ts '<BareSenderOptions as JSON>'` sends `count` POSTs of `body`
// to the URLs in turn, `inFlight` at a time, with undici's `request` through one keep-alive pool, as
// a user would write it (no signature, no queue, no record), reads each answer to its end, and
// prints a BareSenderResult as JSON: its own CPU per request, from process.cpuUsage.
import { Agent, request } from 'undici'

export interface BareSenderOptions { urls: string[], count: number, inFlight: number, body: string }
export interface BareSenderResult { requests: number, failed: number, seconds: number, perSecond: number, cpuMicrosPerRequest: number }

const options = JSON.parse(process.argv[2] ?? '{}') as BareSenderOptions
const dispatcher = new Agent()
const headers = { 'content-type': 'application/json' }

const WARM_UP_REQUESTS = 1000
let failed = 0

/** `count` POSTs, `inFlight` at a time. */
async function send (count: number): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: options.inFlight }, async () => {
    while (next < count) {
      const url = options.urls[next++ % options.urls.length]!
      const response = await request(url, { method: 'POST', headers, body: options.body, dispatcher })
      await response.body.dump()
      if (response.statusCode >= 300) failed++
    }
  }))
}

// A first pass opens the connections and warms the code; the second is measured.
await send(WARM_UP_REQUESTS)
const cpu = process.cpuUsage()
const started = performance.now()
await send(options.count)
const seconds = (performance.now() - started) / 1000
const used = process.cpuUsage(cpu)
const result: BareSenderResult = {
  requests: options.count,
  failed,
  seconds,
  perSecond: options.count / seconds,
  cpuMicrosPerRequest: (used.user + used.system) / options.count
}
process.stdout.write(JSON.stringify(result))
await dispatcher.close()
