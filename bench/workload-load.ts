// One autocannon run of one workload operation, in its own process so it can be pinned to its own
// core. Reads the options as JSON from argv[2] and prints one JSON line of figures (bench/load-result.ts).
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { summarize } from './load-result.ts'
import { openLoop } from './open-loop.ts'
import { OPERATIONS, createPicker, type OperationName, type Sequence, type WorkloadData, type WorkloadRequest } from './workload-operations.ts'

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
  /** Requests per second, evenly spaced (bench/open-loop.ts); unset, as fast as the server answers. */
  offeredRate?: number
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkloadLoadOptions
const picker = createPicker(JSON.parse(readFileSync(options.dataFile, 'utf8')) as WorkloadData, options.tag)

const headersFor = (body: string | undefined) => ({ authorization: options.authorization, ...(body !== undefined && { 'content-type': 'application/json' }) })

async function atFullSpeed () {
  return summarize(await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    pipelining: 1,
    duration: options.duration,
    requests: OPERATIONS[options.operation].map(next => ({
      setupRequest: (request: autocannon.Request, context: object) => {
        const { method, path, body }: WorkloadRequest = next(picker, context as { id?: string })
        return { ...request, method, path, body, headers: headersFor(body) }
      }
    }))
  }))
}

const OPEN_LOOP_WARMUP_SECONDS = 1

async function atOfferedRate (requestsPerSecond: number) {
  const sequence: Sequence = OPERATIONS[options.operation]
  const [next] = sequence
  if (sequence.length !== 1 || next === undefined) throw new Error(`${options.operation} sends a sequence; a fixed rate takes single requests`)
  // This process is new for each run: its first second (its own code not yet compiled, its
  // connections opening) is sent but not counted. Without it, that second made most of a run's p99.
  return await openLoop({ baseUrl: options.baseUrl, connections: options.connections, durationSeconds: options.duration, warmupSeconds: OPEN_LOOP_WARMUP_SECONDS, requestsPerSecond }, () => {
    const { method, path, body } = next(picker, {})
    return { method, path, body, headers: headersFor(body) }
  })
}

const result = options.offeredRate === undefined ? await atFullSpeed() : await atOfferedRate(options.offeredRate)
process.stdout.write(`${JSON.stringify(result)}\n`)
