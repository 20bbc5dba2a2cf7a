// A full client flow per API version, written against the generated types: it compiles only while
// the documents describe what these calls send and read (`npm run lint` type-checks it, strict).
import type { Client } from 'openapi-fetch'
import type { OpsPaths, V1Paths, V2Paths } from '../../clients/typescript/src/index.ts'

export interface Clients<Paths extends object> {
  /** Every scope of the API. */
  full: Client<Paths>
  /** vagas:read only (health:read, metrics:read and heartbeat:write for the operations document). */
  readOnly: Client<Paths>
  anonymous: Client<Paths>
}

/** The statuses the flow saw, in order, for the test to compare with what it meant to provoke. */
export type Statuses = number[]

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
// A body of the right shape sent as text/plain: refused for its type, whatever it says.
const AS_TEXT = { headers: { 'content-type': 'text/plain' }, bodySerializer: (body: unknown) => JSON.stringify(body) }

export async function flowV2 ({ full, readOnly, anonymous }: Clients<V2Paths>, unique: string): Promise<Statuses> {
  const seen: Statuses = []
  const saw = <R extends { response: Response }>(result: R): R => { seen.push(result.response.status); return result }

  const vaga = saw(await full.POST('/api/v2/vagas', { body: { titulo: `Backend ${unique}`, descricao: 'Node e PostgreSQL' } })).data!
  const other = saw(await full.POST('/api/v2/vagas', { body: { titulo: `Frontend ${unique}` } })).data!
  saw(await full.GET('/api/v2/vagas'))
  const page = saw(await full.GET('/api/v2/vagas', { params: { query: { limit: 1, sort: 'titulo', status: 'aberta' } } })).data!
  const next = page.links.find(link => link.rel === 'next')
  if (next !== undefined) saw(await full.GET('/api/v2/vagas', { params: { query: { limit: 1, sort: 'titulo', status: 'aberta', cursor: new URL(next.href, 'http://x').searchParams.get('cursor')! } } }))

  const ana = saw(await full.POST('/api/v2/candidatos', { body: { nome: 'Ana Souza', email: `ana.${unique}@example.com` } })).data!
  const id = { params: { path: { id: ana.id } } }
  saw(await full.POST('/api/v2/candidatos/{id}/candidatar', { ...id, body: { vagaId: vaga.id } }))
  saw(await full.POST('/api/v2/candidatos/{id}/aprovar', id))
  saw(await full.DELETE('/api/v2/candidatos/{id}/aprovar', id))
  saw(await full.POST('/api/v2/candidatos/{id}/reprovar', id))
  saw(await full.DELETE('/api/v2/candidatos/{id}/reprovar', id))
  saw(await full.POST('/api/v2/candidatos/{id}/transferir', { ...id, body: { vagaId: other.id } }))
  saw(await full.DELETE('/api/v2/candidatos/{id}/transferir', id))

  const read = saw(await full.GET('/api/v2/candidatos/{id}', id))
  saw(await full.GET('/api/v2/candidatos/{id}', { ...id, params: { ...id.params, header: { 'if-none-match': read.response.headers.get('etag')! } } }))
  saw(await full.GET('/api/v2/vagas/{id}/candidatos', { params: { path: { id: vaga.id } } }))
  saw(await full.GET('/api/v2/candidatos', { params: { query: { vagaId: vaga.id } } }))

  saw(await full.POST('/api/v2/vagas', { body: { titulo: '' } }))
  saw(await anonymous.GET('/api/v2/vagas'))
  saw(await readOnly.POST('/api/v2/vagas', { body: { titulo: 'Sem escopo' } }))
  saw(await full.GET('/api/v2/vagas/{id}', { params: { path: { id: UNKNOWN_ID } } }))
  saw(await full.POST('/api/v2/candidatos/{id}/candidatar', { ...id, body: { vagaId: other.id } }))
  saw(await full.PATCH('/api/v2/vagas/{id}', { params: { path: { id: vaga.id }, header: { 'if-match': '"stale"' } }, body: { titulo: 'Outra' } }))
  saw(await full.POST('/api/v2/vagas', { body: { titulo: 'Texto' }, ...AS_TEXT }))
  return seen
}

export async function flowV1 ({ full, readOnly, anonymous }: Clients<V1Paths>, unique: string): Promise<Statuses> {
  const seen: Statuses = []
  const saw = <R extends { response: Response }>(result: R): R => { seen.push(result.response.status); return result }

  const vaga = saw(await full.POST('/api/v1/vagas', { body: { titulo: `Dados ${unique}`, status: 'aberta' } })).data!
  const other = saw(await full.POST('/api/v1/vagas', { body: { titulo: `Infra ${unique}` } })).data!
  saw(await full.GET('/api/v1/vagas'))
  saw(await full.GET('/api/v1/vagas', { params: { query: { limit: 1, offset: 1, sort: '-criadoEm' } } }))

  const bia = saw(await full.POST('/api/v1/candidatos', { body: { nome: 'Bia Lima', email: `bia.${unique}@example.com` } })).data!
  const id = { params: { path: { id: bia.id } } }
  saw(await full.POST('/api/v1/candidatos/{id}/candidatar', { ...id, body: { vagaId: vaga.id } }))
  saw(await full.POST('/api/v1/candidatos/{id}/aprovar', id))
  saw(await full.DELETE('/api/v1/candidatos/{id}/aprovar', id))
  saw(await full.POST('/api/v1/candidatos/{id}/reprovar', id))
  saw(await full.DELETE('/api/v1/candidatos/{id}/reprovar', id))
  saw(await full.POST('/api/v1/candidatos/{id}/transferir', { ...id, body: { vagaId: other.id } }))
  saw(await full.DELETE('/api/v1/candidatos/{id}/transferir', id))

  const read = saw(await full.GET('/api/v1/vagas/{id}', { params: { path: { id: vaga.id } } }))
  saw(await full.GET('/api/v1/vagas/{id}', { params: { path: { id: vaga.id }, header: { 'if-none-match': read.response.headers.get('etag')! } } }))
  saw(await full.GET('/api/v1/vagas/{id}/candidatos', { params: { path: { id: vaga.id }, query: { status: 'inscrito' } } }))
  saw(await full.GET('/api/v1/candidatos/{id}', id))

  saw(await full.POST('/api/v1/candidatos', { body: { nome: 'Bia Lima', email: 'not-an-address' } }))
  saw(await anonymous.GET('/api/v1/candidatos'))
  saw(await readOnly.GET('/api/v1/candidatos'))
  saw(await full.DELETE('/api/v1/vagas/{id}', { params: { path: { id: UNKNOWN_ID } } }))
  saw(await full.POST('/api/v1/candidatos', { body: { nome: 'Outra Bia', email: `BIA.${unique}@example.com` } }))
  saw(await full.PUT('/api/v1/candidatos/{id}', { params: { path: { id: bia.id }, header: { 'if-match': '"stale"' } }, body: { nome: 'Bia', email: `bia.${unique}@example.com` } }))
  saw(await full.POST('/api/v1/candidatos', { body: { nome: 'Texto', email: 'texto@example.com' }, ...AS_TEXT }))
  return seen
}

export async function flowOps ({ full, readOnly, anonymous }: Clients<OpsPaths>, unique: string): Promise<Statuses> {
  const seen: Statuses = []
  const saw = <R extends { response: Response }>(result: R): R => { seen.push(result.response.status); return result }
  const heartbeat = { service: 'worker', instanceId: `worker-${unique}`, status: 'alive' as const, timestamp: new Date().toISOString() }

  saw(await anonymous.GET('/ping', { parseAs: 'text' }))
  saw(await anonymous.GET('/health/live'))
  saw(await anonymous.GET('/health'))
  saw(await full.GET('/health'))
  saw(await full.GET('/health/dependencies'))
  saw(await full.GET('/health/{name}', { params: { path: { name: 'database' } } }))
  saw(await full.GET('/metrics', { parseAs: 'text' }))
  saw(await full.POST('/heartbeats', { body: heartbeat }))
  saw(await anonymous.GET('/.well-known/oauth-protected-resource'))

  saw(await full.POST('/heartbeats', { body: { ...heartbeat, timestamp: 'yesterday' } }))
  saw(await anonymous.GET('/metrics', { parseAs: 'text' }))
  saw(await readOnly.GET('/metrics', { parseAs: 'text' }))
  saw(await full.GET('/health/{name}', { params: { path: { name: 'nothing' } } }))
  saw(await full.POST('/heartbeats', { body: heartbeat, ...AS_TEXT }))
  return seen
}

/** What each flow provokes, in order. */
export const EXPECTED_V2 = [201, 201, 200, 200, 200, 201, 200, 200, 204, 200, 204, 200, 204, 200, 304, 200, 200, 400, 401, 403, 404, 409, 412, 415]
export const EXPECTED_OPS = [200, 200, 200, 200, 200, 200, 200, 204, 200, 400, 401, 403, 404, 415]
export const EXPECTED_V1 = [201, 201, 200, 200, 201, 200, 200, 204, 200, 204, 200, 204, 200, 304, 200, 200, 400, 401, 403, 404, 409, 412, 415]
