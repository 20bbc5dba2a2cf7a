// One autocannon run of one workload operation, in its own process so it can be pinned to its own
// core. Reads the options as JSON from argv[2] and prints one JSON line of figures (bench/load-result.ts).
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { summarize } from './load-result.js'
import { OPERATIONS, createPicker, type OperationName, type WorkloadData, type WorkloadRequest } from './workload-operations.js'

export interface WorkloadLoadOptions {
  baseUrl: string
  operation: OperationName
  /** The JSON file of WorkloadData the requests pick their ids from. */
  dataFile: string
  authorization: string
  /** Makes the addresses of created candidatos unique to this run. */
  tag: string
  connections: number
  duration: number
  /** Requests per second over all connections; unset, as fast as the server answers. */
  overallRate?: number
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkloadLoadOptions
const picker = createPicker(JSON.parse(readFileSync(options.dataFile, 'utf8')) as WorkloadData, options.tag)

const result = await autocannon({
  url: options.baseUrl,
  connections: options.connections,
  pipelining: 1,
  duration: options.duration,
  ...(options.overallRate !== undefined && { overallRate: options.overallRate }),
  requests: OPERATIONS[options.operation].map(next => ({
    setupRequest: (request: autocannon.Request, context: object) => {
      const { method, path, body }: WorkloadRequest = next(picker, context as { id?: string })
      const headers = { authorization: options.authorization, ...(body !== undefined && { 'content-type': 'application/json' }) }
      return { ...request, method, path, body, headers }
    }
  }))
})

process.stdout.write(`${JSON.stringify(summarize(result))}\n`)
