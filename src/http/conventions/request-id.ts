import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

// A caller's request id is kept only when it is short and made of safe characters.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/

// UUID-shaped ids: a random prefix drawn once per process and a counter in the last group. They are
// as unique as random UUIDs across instances and restarts, and cost a counter increment instead of
// a draw from the CSPRNG on every request (docs/benchmarks.md, "Costs behind the code").
const processPrefix = randomUUID().slice(0, 24)
const COUNTER_SPACE = 16 ** 12
let counter = 0

export function newRequestId (): string {
  counter = (counter + 1) % COUNTER_SPACE
  return processPrefix + counter.toString(16).padStart(12, '0')
}

export function requestId (req: IncomingMessage): string {
  const offered = req.headers['x-request-id']
  return typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : newRequestId()
}
