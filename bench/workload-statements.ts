// The SQL the service runs for each workload operation, read from the service itself: the app is
// built in this process on the benchmark's database, every statement its `pg` connections send is
// recorded, and one request of each operation is injected. The bare baseline must run exactly these
// statements (bench/workload-sql.ts); `npm run bench:workload` stops when they differ.
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import app from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { serverOptions } from '../src/server-options.js'
import { createPicker, single, type SingleName, type WorkloadData, type WorkloadRequest } from './workload-operations.js'
import { BASELINE_STATEMENTS } from './workload-sql.js'

type Query = (this: pg.Client, ...args: unknown[]) => unknown

/** Every statement text sent by any `pg` client of this process while `work` runs. */
async function recording<T> (work: (statements: string[]) => Promise<T>): Promise<T> {
  const statements: string[] = []
  const original = pg.Client.prototype.query as unknown as Query
  const patched: Query = function (this: pg.Client, ...args: unknown[]) {
    const [config] = args
    const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text
    if (text !== undefined) statements.push(text)
    return original.apply(this, args)
  }
  pg.Client.prototype.query = patched as unknown as typeof pg.Client.prototype.query
  try {
    return await work(statements)
  } finally {
    pg.Client.prototype.query = original as unknown as typeof pg.Client.prototype.query
  }
}

/** What one request of each operation makes the service send, in the order sent. */
export async function serviceStatements (env: Record<string, string>, data: WorkloadData, authorization: string): Promise<Record<SingleName, string[]>> {
  return await recording(async statements => {
    // The webhook dispatch asks its question on a timer, for no request: not within the recording.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', WEBHOOK_DISPATCH_INTERVAL_MS: '60000' })
    const fastify = Fastify(serverOptions(config))
    try {
      await fastify.register(fp(app), { config })
      await fastify.ready()
      await fastify.storage.whenReady()
      // Business routes answer 503 `Starting` until readiness has first been Healthy.
      await fastify.health.lifecycle.reached('serving')
      const picker = createPicker(data, `check-${process.pid}`)
      const found: Partial<Record<SingleName, string[]>> = {}
      let approved = ''
      for (const name of Object.keys(single) as SingleName[]) {
        const request: WorkloadRequest = single[name](picker, approved)
        if (name === 'aprovar') approved = request.path.split('/')[4] ?? ''
        statements.length = 0
        const response = await fastify.inject({
          method: request.method,
          url: request.path,
          headers: { authorization, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
          body: request.body
        })
        if (response.statusCode >= 300) throw new Error(`${request.method} ${request.path} answered ${response.statusCode}: ${response.body}`)
        found[name] = statements.filter(text => text !== 'select 1')
      }
      return found as Record<SingleName, string[]>
    } finally {
      await fastify.close()
    }
  })
}

/** Throws, naming each operation and statement, when the baseline no longer runs what the service runs. */
export function assertSameStatements (service: Record<SingleName, string[]>): void {
  const differences: string[] = []
  for (const [name, statements] of Object.entries(service) as Array<[SingleName, string[]]>) {
    const baseline = BASELINE_STATEMENTS[name].map(statement => statement.text)
    // Statements a request sends concurrently (a page and its count) may leave in either order.
    const sorted = (texts: string[]) => [...texts].sort().join('\n')
    if (sorted(statements) === sorted(baseline)) continue
    differences.push(`${name}:\n  service:  ${statements.join('\n            ')}\n  baseline: ${baseline.join('\n            ')}`)
  }
  if (differences.length > 0) {
    throw new Error(`the service's SQL changed; update bench/workload-sql.ts to the statements it sends now:\n${differences.join('\n')}`)
  }
}
