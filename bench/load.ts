// One autocannon run, in its own process so it can be pinned to its own core. Reads the options
// as JSON from argv[2] and prints one JSON line with the figures bench/run.ts needs.
import autocannon from 'autocannon'
import { summarize, type LoadResult } from './load-result.ts'

export type { LoadResult }

export interface LoadOptions {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  connections: number
  pipelining: number
  duration: number
}

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions

const result = await autocannon({
  url: options.url,
  method: options.method as autocannon.Request['method'],
  headers: options.headers,
  body: options.body,
  connections: options.connections,
  pipelining: options.pipelining,
  duration: options.duration
})

process.stdout.write(`${JSON.stringify(summarize(result))}\n`)
