// Hostile input over every operation of every OpenAPI document (docs/api.md, "Hostile input"): for each
// request, no 5xx, no internal detail in an error, every error a problem document, and a refused
// write changes no stored data. FUZZ_RUNS (per operation), FUZZ_SEED and FUZZ_OPERATION (a
// substring of "METHOD /path") set the budget; the default is what CI runs.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { bearer, build } from '../helper.ts'
import { freshPostgresDatabase } from '../support/services.ts'
import { bodyValue, jsonValue, plausibleValue, textValue } from './hostile-values.ts'
import { publishedDocuments, publishedOperations, type Operation } from './operations.ts'
import { storedState } from './stored-state.ts'

const RUNS = Number(process.env.FUZZ_RUNS ?? 20)
const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
const ONLY = process.env.FUZZ_OPERATION

// What an error body must never hold: stack frames, source paths, SQL and driver errors, connection strings.
const INTERNAL_DETAIL = /\n\s+at |node_modules|\/work\/|\.[jt]s:\d+:\d+|ECONNREFUSED|postgres(?:ql)?:\/\/|violates|syntax error|invalid input syntax|relation "|column "/i

interface Known { vagaIds: string[], candidatoIds: string[], tokens: Record<string, string> }

/** Two vagas (one closed) and three candidatos in different states, so that ids in paths often exist. */
async function seed (app: FastifyInstance, authorization: string): Promise<Pick<Known, 'vagaIds' | 'candidatoIds'>> {
  const post = async (url: string, payload: Record<string, unknown>): Promise<string> =>
    (await app.inject({ method: 'POST', url, headers: { authorization }, payload })).json<{ id: string }>().id
  const aberta = await post('/api/v2/vagas', { titulo: 'Aberta' })
  const fechada = await post('/api/v2/vagas', { titulo: 'Fechada', status: 'fechada' })
  const candidatoIds: string[] = []
  for (const [index, action] of ['', 'candidatar', 'aprovar'].entries()) {
    const id = await post('/api/v2/candidatos', { nome: `Pessoa ${index}`, email: `pessoa${index}@example.com` })
    if (action !== '') await post(`/api/v2/candidatos/${id}/candidatar`, { vagaId: aberta })
    if (action === 'aprovar') await post(`/api/v2/candidatos/${id}/aprovar`, {})
    candidatoIds.push(id)
  }
  return { vagaIds: [aberta, fechada], candidatoIds }
}

function stringOf (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? ''
}

/** Percent-encoded as a client library would; a lone surrogate goes as the UTF-8 of its replacement. */
function encoded (value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return [...Buffer.from(value)].map(byte => `%${byte.toString(16).padStart(2, '0')}`).join('')
  }
}

/** Random requests for one operation: all but one part (at most) as a client means it, that one hostile. */
function requests (operation: Operation, known: Known): fc.Arbitrary<InjectOptions> {
  const param = (where: string) => operation.parameters.filter(p => p.in === where)
  // The ids of the resource the path names: a vaga's under /vagas/{id}, a candidato's elsewhere.
  const pathIds = operation.path.includes('/vagas/{') ? known.vagaIds : known.candidatoIds
  const ids = [...known.vagaIds, ...known.candidatoIds]
  const paths = param('path')
  const queries = param('query')
  // Slots a fault may go to: each path parameter, each query parameter, then headers, token, version, body.
  const slots = paths.length + queries.length + 4
  return fc.integer({ min: -1, max: slots - 1 }).chain(fault => {
    const hostileAt = (slot: number) => fault === slot
    const pathValues = fc.tuple(...paths.map((p, i) => fc.tuple(fc.constant(p.name),
      hostileAt(i) ? textValue() : fc.constantFrom(...pathIds),
      // Encoded as a client library would, or, when hostile, sometimes raw: traversal, stray %, invalid UTF-8.
      hostileAt(i) ? fc.boolean() : fc.constant(false))))
    const queryValues = fc.tuple(...queries.map((p, i) => fc.tuple(fc.constant(p.name), hostileAt(paths.length + i)
      ? fc.array(fc.tuple(jsonValue(p.schema, ids), fc.boolean()), { minLength: 1, maxLength: 3 })
      : fc.oneof(fc.constant([]), plausibleValue(p.schema, known.vagaIds).map(value => [[value, false] as [unknown, boolean]])))))
    const slot = paths.length + queries.length
    const headerValues = fc.tuple(...param('header').map(p => fc.tuple(fc.constant(p.name),
      hostileAt(slot) ? fc.option(textValue(['*', '"x"', 'W/"1"']), { nil: undefined }) : fc.constant(undefined))))
    const token = hostileAt(slot + 1) ? fc.constantFrom(...Object.keys(known.tokens)) : fc.constant('all')
    const version = hostileAt(slot + 2) ? textValue(['1.0', '2.0', '3.0']) : fc.constant(undefined)
    const contentType = hostileAt(slot + 3)
      ? fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.recrutamento-v2+json', 'application/json; x-api-version=2.0')
      : fc.constant('application/json')
    const body = operation.body === undefined ? fc.constant(undefined) : bodyValue(operation.body, known.vagaIds, hostileAt(slot + 3))
    return fc.record({ pathValues, queryValues, headerValues, token, version, contentType, body })
  }).map(drawn => {
    let url = operation.path
    for (const [name, value, raw] of drawn.pathValues) url = url.replace(`{${name}}`, raw ? value : encoded(value))
    const query = drawn.queryValues.flatMap(([name, values]) => values.map(([value, raw]) => `${name}=${raw ? stringOf(value) : encoded(stringOf(value))}`))
    const headers: Record<string, string> = {}
    for (const [name, value] of drawn.headerValues) if (value !== undefined) headers[name] = value
    if (known.tokens[drawn.token] !== undefined) headers.authorization = known.tokens[drawn.token]!
    if (drawn.version !== undefined) headers['x-api-version'] = drawn.version
    if (drawn.body !== undefined) headers['content-type'] = drawn.contentType
    return {
      method: operation.method as InjectOptions['method'],
      url: query.length > 0 ? `${url}?${query.join('&')}` : url,
      headers,
      ...(drawn.body !== undefined && { payload: drawn.body })
    }
  })
}

/** Why the answer breaks the rules, or undefined when it keeps them. */
function violation (res: LightMyRequestResponse, method: string): string | undefined {
  if (res.statusCode >= 500) return `answered ${res.statusCode}`
  if (res.statusCode < 400 || method === 'HEAD') return undefined
  if (!String(res.headers['content-type']).startsWith('application/problem+json')) return `error ${res.statusCode} is ${String(res.headers['content-type'])}, not a problem`
  const body = res.json() as Record<string, unknown>
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || body.status !== res.statusCode) return 'problem lacks type, title or the right status'
  if (INTERNAL_DETAIL.test(res.body)) return 'error body shows internal detail'
  return undefined
}

async function fuzz (t: Test, env: Record<string, string>): Promise<void> {
  // No rate limit: one client sends every request (rate limiting has its own tests).
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0', ...env } })
  await app.health.lifecycle.reached('serving')
  const published = await publishedOperations(app)
  const operations = published.filter(op => ONLY === undefined || `${op.method} ${op.path}`.includes(ONLY))
  const allScopes = [...new Set(published.flatMap(op => op.scopes))].join(' ')
  const tokens = {
    all: (await bearer({ scope: allScopes, sub: 'fuzz' })).authorization,
    none: '',
    readOnly: (await bearer({ scope: 'vagas:read candidatos:read', sub: 'fuzz' })).authorization,
    garbage: 'Bearer not.a.token',
    basic: 'Basic dXNlcjpwYXNz'
  }
  const known: Known = { ...await seed(app, tokens.all), tokens }
  const byClass: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }
  let sent = 0

  for (const operation of operations) {
    const name = `${operation.method} ${operation.path}`
    const writes = operation.method !== 'GET' && operation.method !== 'HEAD'
    try {
      await fc.assert(fc.asyncProperty(requests(operation, known), async request => {
        const before = writes ? await storedState(app.storage.db) : undefined
        const res = await app.inject(request)
        sent++
        byClass[`${Math.floor(res.statusCode / 100)}xx`]!++
        const broken = violation(res, operation.method)
        if (broken !== undefined) throw new Error(`${broken}: ${res.statusCode} ${res.body.slice(0, 500)}`)
        if (before !== undefined && res.statusCode >= 400 && await storedState(app.storage.db) !== before) {
          throw new Error(`refused with ${res.statusCode} but stored data changed`)
        }
      }), { numRuns: RUNS, seed: SEED, endOnFailure: true })
    } catch (error) {
      t.fail(`${name}: ${(error as Error).message}\nReproduce: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_OPERATION='${name}'`)
    }
  }
  const documents = [...new Set(operations.map(op => op.document))]
  if (ONLY === undefined) t.same(documents, publishedDocuments(app), 'every published document is fuzzed')
  t.ok(operations.length >= (ONLY === undefined ? 50 : 1), `${operations.length} operations from the ${documents.join(', ')} documents`)
  t.comment(`${operations.length} operations, ${sent} requests: ${Object.entries(byClass).map(([k, v]) => `${k} ${v}`).join(', ')} (seed ${SEED}, ${RUNS} runs each)`)
  t.equal(byClass['5xx'], 0, 'no request answered 5xx')
}

t.test('hostile input on the embedded database', async t => {
  await fuzz(t, {})
})

t.test('hostile input on PostgreSQL', async t => {
  const url = await freshPostgresDatabase(t)
  if (url === undefined) return
  await fuzz(t, { DATABASE_URL: url })
})
