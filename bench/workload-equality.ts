// The check `npm run bench:workload` makes before it measures: the same-JSON app (bench/same-json-app.ts)
// answers what the service answers. For a sample of requests of each operation both servers get the
// same request (a list also in pages of 5, and the page its `next` link names), and their statuses,
// `Location`, `ETag` and parsed bodies must be equal, every one a 2xx. A write runs
// on the service, its candidato is put back as it was, then the same write runs on the app; the id it
// created and the instants it wrote are normalised before comparing. Any difference stops the run.
import { isDeepStrictEqual } from 'node:util'
import pg from 'pg'
import type { Server } from './harness.ts'
import { createPicker, OPERATIONS, type OperationName, type WorkloadData, type WorkloadRequest } from './workload-operations.ts'

interface Answer { status: number, location: string | null, etag: string | null, body: unknown }

/** Sampled requests per operation. */
const SAMPLES = Number(process.env.BENCH_CHECK_SAMPLES ?? 10)
/** `mixed` picks its requests from the others, which are checked one by one. */
const CHECKED = (Object.keys(OPERATIONS) as OperationName[]).filter(name => name !== 'mixed')
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function send (server: Server, request: WorkloadRequest, authorization: string): Promise<Answer> {
  const response = await fetch(new URL(request.path, server.baseUrl), {
    method: request.method,
    body: request.body,
    headers: { authorization, ...(request.body !== undefined && { 'content-type': 'application/json' }) }
  })
  const text = await response.text()
  const json = response.headers.get('content-type')?.startsWith('application/json') === true && text !== ''
  return { status: response.status, location: response.headers.get('location'), etag: response.headers.get('etag'), body: json ? JSON.parse(text) : text }
}

/** The answer with what a write makes anew replaced: the ids it created, the instants from `since` on. */
function normalised (value: unknown, created: string[], since: string): unknown {
  if (typeof value === 'string') {
    if (INSTANT.test(value) && value >= since) return '<written>'
    return value.replaceAll(UUID, id => created.includes(id) ? '<created>' : id)
  }
  if (Array.isArray(value)) return value.map(item => normalised(item, created, since))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalised(item, created, since)]))
  }
  return value
}

/** Where two answers differ, as `path: service … app …` lines (at most `max`). */
function differences (service: unknown, app: unknown, path = '', found: string[] = [], max = 8): string[] {
  if (found.length >= max || isDeepStrictEqual(service, app)) return found
  const bothObjects = service !== null && app !== null && typeof service === 'object' && typeof app === 'object' && Array.isArray(service) === Array.isArray(app)
  if (!bothObjects) {
    found.push(`${path || '(answer)'}: service ${JSON.stringify(service)}, app ${JSON.stringify(app)}`)
    return found
  }
  const keys = new Set([...Object.keys(service), ...Object.keys(app)])
  for (const key of keys) {
    differences((service as Record<string, unknown>)[key], (app as Record<string, unknown>)[key], Array.isArray(service) ? `${path}[${key}]` : `${path}.${key}`, found, max)
  }
  return found
}

/** The candidatos a request acts on (`/candidatos/{id}/{acao}`). */
function actedOn (requests: WorkloadRequest[]): string[] {
  return requests.flatMap(request => /^\/api\/v\d\/candidatos\/([0-9a-f-]{36})\//.exec(request.path)?.[1] ?? [])
}

/**
 * Throws, naming each request and where the answers differ, when the app does not answer the same as
 * the service. Leaves the data as it found it.
 */
export async function assertSameAnswers (servers: { service: Server, app: Server }, data: WorkloadData, authorization: string, databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const since = new Date((await client.query<{ now: Date | string }>('select now()')).rows[0]!.now).toISOString()
    const picker = createPicker(data, `check-${process.pid}`)
    const failures: string[] = []
    for (const name of CHECKED) {
      for (let sample = 0; sample < SAMPLES; sample++) {
        const context = {}
        const requests: WorkloadRequest[] = OPERATIONS[name].map(next => next(picker, context))
        const ids = actedOn(requests)
        const { rows: before } = await client.query('select id, status, vaga_id, transferido_de, atualizado_em, versao from candidatos where id = any($1)', [ids])
        // Each side from the same state: the candidatos acted on are put back, a created one removed.
        const putBack = async (answers: Answer[]) => {
          const created = answers.flatMap(answer => answer.status === 201 && answer.location !== null ? answer.location.match(UUID) ?? [] : [])
          if (created.length > 0) await client.query('delete from candidatos where id = any($1)', [created])
          await client.query("delete from candidato_acoes where candidato_id = any($1) and ator <> 'seed'", [ids])
          for (const row of before) {
            await client.query('update candidatos set status = $2, vaga_id = $3, transferido_de = $4, atualizado_em = $5, versao = $6 where id = $1',
              [row.id, row.status, row.vaga_id, row.transferido_de, row.atualizado_em, row.versao])
          }
          return created
        }
        const answersOf = async (server: Server) => {
          const answers: Answer[] = []
          for (const request of requests) answers.push(await send(server, request, authorization))
          return normalised(answers, await putBack(answers), since) as Answer[]
        }
        const service = await answersOf(servers.service)
        const app = await answersOf(servers.app)
        // A list also in pages of 5, and its next page: the links to it and the page behind them.
        const list = requests.length === 1 && requests[0]!.method === 'GET' && /[?&]limit=/.test(requests[0]!.path) ? requests[0]! : undefined
        if (list !== undefined) {
          const small = { method: 'GET' as const, path: list.path.replace(/limit=\d+/, 'limit=5') }
          const smallAnswer = await send(servers.service, small, authorization)
          requests.push(small)
          service.push(smallAnswer)
          app.push(await send(servers.app, small, authorization))
          const next = ((smallAnswer.body as { links?: Array<{ rel: string, href: string }> }).links ?? []).find(link => link.rel === 'next')
          if (next !== undefined) {
            const following = { method: 'GET' as const, path: next.href }
            requests.push(following)
            service.push(await send(servers.service, following, authorization))
            app.push(await send(servers.app, following, authorization))
          }
        }
        requests.forEach((request, i) => {
          // Two equal refusals would prove nothing: every request of the workload expects a 2xx.
          const refused = [['service', service[i]!], ['app', app[i]!]].filter(([, answer]) => (answer as Answer).status >= 300)
          const found = refused.length > 0
            ? refused.map(([side, answer]) => `the ${side as string} answered ${(answer as Answer).status}: ${JSON.stringify((answer as Answer).body)}`)
            : differences(service[i], app[i])
          if (found.length > 0) failures.push(`${name}: ${request.method} ${request.path}${request.body === undefined ? '' : ` ${request.body}`}\n    ${found.join('\n    ')}`)
        })
      }
      process.stdout.write(` ${name}`)
    }
    process.stdout.write('\n')
    if (failures.length > 0) {
      throw new Error(`the same-JSON app (bench/same-json-app.ts) answers otherwise than the service; fix it before measuring:\n  ${failures.slice(0, 10).join('\n  ')}` +
        (failures.length > 10 ? `\n  ... and ${failures.length - 10} more` : ''))
    }
  } finally {
    await client.end()
  }
}
