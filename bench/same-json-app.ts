// The yardstick of `npm run bench:workload`: what a user would write with Fastify 5 and `pg` to answer
// the same JSON as the service for the URLs the workload sends (docs/api.md): every field, every
// item's links, `total`, the page's links and ETag, the history on a read, the same status codes,
// `Location` and `ETag`. Written the straightforward way: one named prepared statement per query, no
// batching, a transaction per write, bodies by JSON.stringify (Fastify's default without a response
// schema), node's default flags. It copies the representation rules rather than importing the
// service, and leaves out what the service adds on purpose: the token is read for its `sub` (the
// actor in histories) but not verified; no version negotiation beyond the path, no idempotency keys,
// no events, no access log. Lists take the filters and sort the workload uses.
import { createHash } from 'node:crypto'
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
const app = Fastify()

type Db = pg.Pool | pg.PoolClient

async function query (db: Db, name: string, text: string, values: unknown[] = []): Promise<any[]> {
  return (await db.query({ name, text, values })).rows
}

const VERSIONS: Record<string, string> = { v1: '1.0', v2: '2.0' }
const COLUMNS = 'c.id, c.nome, c.email, c.status, c.vaga_id, c.transferido_de, c.criado_em, c.atualizado_em, c.versao, ' +
  'v.titulo as vaga_titulo, v.status as vaga_status, v.versao as vaga_versao from candidatos c left join vagas v on v.id = c.vaga_id'
const HISTORY = "coalesce((select json_agg(a order by a.id) from candidato_acoes a where a.candidato_id = c.id), '[]') as historico"
const DETAIL = `select ${HISTORY}, ${COLUMNS} where c.id = $1`
const NEWEST_FIRST = 'order by c.criado_em desc, c.id limit $3'
const IN_VAGA = 'where c.status = $1 and c.vaga_id = $2'
const VAGA = 'select id, titulo, descricao, status, criado_em, atualizado_em, versao from vagas'

/** The actions each status allows, in the order the service lists them. */
function allowedActions (c: any): Array<[string, string]> {
  switch (c.status) {
    case 'cadastrado': return [['candidatar', 'POST']]
    case 'inscrito': return [['aprovar', 'POST'], ['reprovar', 'POST'],
      ...(c.vaga_id !== null ? [['transferir', 'POST']] as Array<[string, string]> : []),
      ...(c.transferido_de !== null ? [['transferir', 'DELETE']] as Array<[string, string]> : [])]
    case 'aprovado': return [['aprovar', 'DELETE']]
    default: return [['reprovar', 'DELETE']]
  }
}

function candidatoLinks (base: string, c: any) {
  const self = `${base}/candidatos/${c.id}`
  const links = [{ rel: 'self', href: self, method: 'GET' }, { rel: 'edit', href: self, method: 'PUT' }, { rel: 'edit', href: self, method: 'PATCH' }]
  if (c.vaga_id !== null) links.push({ rel: 'vaga', href: `${base}/vagas/${c.vaga_id}`, method: 'GET' })
  for (const [rel, method] of allowedActions(c)) links.push({ rel, href: `${self}/${rel}`, method })
  return links
}

function historyEntry (a: any) {
  return { acao: a.acao, metodo: a.metodo, statusAnterior: a.status_anterior, status: a.status_novo, vagaAnteriorId: a.vaga_anterior_id, vagaId: a.vaga_id, ator: a.ator, em: new Date(a.em).toISOString() }
}

/** 1.0 names the vaga by id, 2.0 embeds its summary; one candidato alone carries its history. */
function candidato (version: string, c: any) {
  const base = `/api/${version}`
  return {
    id: c.id,
    nome: c.nome,
    email: c.email,
    status: c.status,
    transferidoDe: c.transferido_de,
    criadoEm: c.criado_em.toISOString(),
    atualizadoEm: c.atualizado_em.toISOString(),
    ...(c.historico !== undefined && { historico: c.historico.map(historyEntry) }),
    links: candidatoLinks(base, c),
    ...(version === 'v1'
      ? { vagaId: c.vaga_id }
      : { vaga: c.vaga_id === null ? null : { id: c.vaga_id, titulo: c.vaga_titulo, status: c.vaga_status } })
  }
}

function candidatoEtag (version: string, c: any): string {
  return version === 'v1' ? `"1.0-${c.versao}"` : `"2.0-${c.versao}-${c.vaga_versao ?? 0}"`
}

function vaga (version: string, v: any) {
  const self = `/api/${version}/vagas/${v.id}`
  return {
    id: v.id,
    titulo: v.titulo,
    descricao: v.descricao,
    status: v.status,
    criadoEm: v.criado_em.toISOString(),
    atualizadoEm: v.atualizado_em.toISOString(),
    links: [{ rel: 'self', href: self, method: 'GET' }, { rel: 'edit', href: self, method: 'PUT' }, { rel: 'edit', href: self, method: 'PATCH' }, { rel: 'candidatos', href: `${self}/candidatos`, method: 'GET' }]
  }
}

function problem (status: number, title: string) {
  return { type: 'about:blank', title, status }
}

interface PageQuery { status?: string, vagaId?: string, sort?: string, limit?: string, offset?: string, cursor?: string }

/** A page's weak ETag, as the service makes it: the version, total, links' hrefs and each item's id and ETag, hashed. */
function pageEtag (version: string, items: any[], itemEtag: (item: any) => string, total: number | undefined, links: Array<{ href: string }>): string {
  let text = `${VERSIONS[version]}\n${total ?? ''}\n`
  for (const link of links) text += `${link.href} `
  text += '\n'
  for (const item of items) text += `${item.id}:${itemEtag(item)} `
  return `W/"${createHash('sha1').update(text).digest('base64url')}"`
}

/** A cursor is bound to its collection, sort and filters, so it cannot be used with others. */
function binding (collection: string, filter: Array<[string, string]>): string {
  return createHash('sha256').update(JSON.stringify([collection, '-criadoEm', filter])).digest('base64url').slice(0, 16)
}

function encodeCursor (bound: string, last: any): string {
  return Buffer.from(JSON.stringify({ b: bound, v: [last.criado_em.toISOString()], id: last.id })).toString('base64url')
}

function decodeCursor (cursor: string, bound: string): { criadoEm: string, id: string } | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    return decoded.b === bound ? { criadoEm: decoded.v[0], id: decoded.id } : undefined
  } catch {
    return undefined
  }
}

interface Listing {
  version: string
  /** The collection's path without `/api/{version}`. */
  path: string
  /** The filters in the links (the vaga of a nested collection is in its path). */
  linkFilter: Record<string, string>
  /** The filters, sorted by name, that bind a cursor. */
  filter: Array<[string, string]>
  query: PageQuery
  /** A page from the offset: rows, at most `fetch`. */
  offsetPage: (fetch: number, offset: number) => Promise<any[]>
  count: () => Promise<number>
  /** A page after a cursor's position, or from the start. */
  cursorPage: (fetch: number, after?: { criadoEm: string, id: string }) => Promise<any[]>
  toBody: (version: string, row: any) => unknown
  itemEtag: (version: string, row: any) => string
}

/** 1.0 pages by offset with the total and next/prev links; 2.0 by cursor, with a next link while there are more. */
async function listPage (reply: any, l: Listing) {
  if (l.query.sort !== undefined && l.query.sort !== '-criadoEm') return await reply.code(400).send(problem(400, 'only sort=-criadoEm is served'))
  const limit = Number(l.query.limit ?? 20)
  const href = (extra: Record<string, string | number>) =>
    `/api/${l.version}${l.path}?${new URLSearchParams({ ...l.linkFilter, ...(l.query.sort !== undefined && { sort: l.query.sort }), limit: String(limit), ...extra } as Record<string, string>).toString()}`
  const itemEtag = (row: any) => l.itemEtag(l.version, row)
  if (l.version === 'v1') {
    const offset = Number(l.query.offset ?? 0)
    const [rows, total] = await Promise.all([l.offsetPage(limit + 1, offset), l.count()])
    const items = rows.slice(0, limit)
    const links = [{ rel: 'self', href: href({ offset }), method: 'GET' }]
    if (rows.length > limit) links.push({ rel: 'next', href: href({ offset: offset + limit }), method: 'GET' })
    if (offset > 0) links.push({ rel: 'prev', href: href({ offset: Math.max(0, offset - limit) }), method: 'GET' })
    reply.header('etag', pageEtag(l.version, items, itemEtag, total, links))
    return { items: items.map(row => l.toBody(l.version, row)), total, offset, limit, links }
  }
  const bound = binding(l.path, l.filter)
  const after = l.query.cursor === undefined ? undefined : decodeCursor(l.query.cursor, bound)
  if (l.query.cursor !== undefined && after === undefined) return await reply.code(400).send(problem(400, 'Invalid cursor'))
  const rows = await l.cursorPage(limit + 1, after)
  const items = rows.slice(0, limit)
  const links = [{ rel: 'self', href: href(l.query.cursor === undefined ? {} : { cursor: l.query.cursor }), method: 'GET' }]
  if (rows.length > limit) links.push({ rel: 'next', href: href({ cursor: encodeCursor(bound, items[items.length - 1]) }), method: 'GET' })
  reply.header('etag', pageEtag(l.version, items, itemEtag, undefined, links))
  return { items: items.map(row => l.toBody(l.version, row)), limit, links }
}

/** The candidatos of one vaga in one status: the lists of `/candidatos?vagaId=` and `/vagas/{id}/candidatos`. */
function candidatosIn (version: string, path: string, linkFilter: Record<string, string>, status: string, vagaId: string, pageQuery: PageQuery): Listing {
  return {
    version,
    path,
    linkFilter,
    filter: [['status', status], ['vagaId', vagaId]],
    query: pageQuery,
    offsetPage: async (fetch, offset) => await query(pool, 'candidatos-page', `select ${COLUMNS} ${IN_VAGA} ${NEWEST_FIRST} offset $4`, [status, vagaId, fetch, offset]),
    count: async () => (await query(pool, 'candidatos-count', 'select count(*)::int as total from candidatos c where c.status = $1 and c.vaga_id = $2', [status, vagaId]))[0].total,
    cursorPage: async (fetch, after) => after === undefined
      ? await query(pool, 'candidatos-first', `select ${COLUMNS} ${IN_VAGA} ${NEWEST_FIRST}`, [status, vagaId, fetch])
      : await query(pool, 'candidatos-after', `select ${COLUMNS} ${IN_VAGA} and (c.criado_em < $4 or (c.criado_em = $4 and c.id > $5)) ${NEWEST_FIRST}`, [status, vagaId, fetch, after.criadoEm, after.id]),
    toBody: candidato,
    itemEtag: candidatoEtag
  }
}

function versionOf (params: { version: string }, reply: any): string | undefined {
  if (VERSIONS[params.version] !== undefined) return params.version
  reply.code(404).send(problem(404, 'Not Found'))
  return undefined
}

app.get('/ping', async () => 'pong')

app.get<{ Params: { version: string, id: string } }>('/api/:version/candidatos/:id', async (request, reply) => {
  const version = versionOf(request.params, reply)
  if (version === undefined) return reply
  const [row] = await query(pool, 'candidato-detail', DETAIL, [request.params.id])
  if (row === undefined) return await reply.code(404).send(problem(404, 'Not Found'))
  reply.header('etag', candidatoEtag(version, row))
  return candidato(version, row)
})

app.get<{ Params: { version: string }, Querystring: PageQuery }>('/api/:version/candidatos', async (request, reply) => {
  const version = versionOf(request.params, reply)
  if (version === undefined) return reply
  const { status, vagaId } = request.query
  if (status === undefined || vagaId === undefined) return await reply.code(400).send(problem(400, 'status and vagaId are required here'))
  return await listPage(reply, candidatosIn(version, '/candidatos', { status, vagaId }, status, vagaId, request.query))
})

app.get<{ Params: { version: string, id: string }, Querystring: PageQuery }>('/api/:version/vagas/:id/candidatos', async (request, reply) => {
  const version = versionOf(request.params, reply)
  if (version === undefined) return reply
  const status = request.query.status
  const vagaId = request.params.id
  if (status === undefined) return await reply.code(400).send(problem(400, 'status is required here'))
  const page: any = await listPage(reply, candidatosIn(version, `/vagas/${vagaId}/candidatos`, { status }, status, vagaId, request.query))
  if (page.items?.length === 0 && (await query(pool, 'vaga-exists', 'select id from vagas where id = $1', [vagaId])).length === 0) {
    return await reply.code(404).send(problem(404, 'Not Found'))
  }
  return page
})

app.get<{ Params: { version: string }, Querystring: PageQuery }>('/api/:version/vagas', async (request, reply) => {
  const version = versionOf(request.params, reply)
  if (version === undefined) return reply
  return await listPage(reply, {
    version,
    path: '/vagas',
    linkFilter: {},
    filter: [],
    query: request.query,
    offsetPage: async (fetch, offset) => await query(pool, 'vagas-page', `${VAGA} order by criado_em desc, id limit $1 offset $2`, [fetch, offset]),
    count: async () => (await query(pool, 'vagas-count', 'select count(*)::int as total from vagas'))[0].total,
    cursorPage: async (fetch, after) => after === undefined
      ? await query(pool, 'vagas-first', `${VAGA} order by criado_em desc, id limit $1`, [fetch])
      : await query(pool, 'vagas-after', `${VAGA} where criado_em < $2 or (criado_em = $2 and id > $3) order by criado_em desc, id limit $1`, [fetch, after.criadoEm, after.id]),
    toBody: vaga,
    itemEtag: (version, row) => `"${VERSIONS[version]}-${row.versao}"`
  })
})

/** Who acts: the token's `sub`. The service verifies the token; this app only reads it. */
function actor (authorization: string | undefined): string {
  const payload = authorization?.split('.')[1]
  return payload === undefined ? 'anonymous' : JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')).sub
}

const createSchema = {
  body: {
    type: 'object',
    required: ['nome', 'email'],
    additionalProperties: false,
    properties: { nome: { type: 'string', minLength: 1, maxLength: 200 }, email: { type: 'string', maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' } }
  }
}

app.post<{ Params: { version: string }, Body: { nome: string, email: string } }>('/api/:version/candidatos', { schema: createSchema }, async (request, reply) => {
  const version = versionOf(request.params, reply)
  if (version === undefined) return reply
  const { nome, email } = request.body
  try {
    const [row] = await query(pool, 'candidato-insert',
      "insert into candidatos (nome, email, email_chave, status) values ($1, $2, $3, 'cadastrado') returning id, nome, email, status, vaga_id, transferido_de, criado_em, atualizado_em, versao",
      [nome, email, email.normalize('NFKC').toLowerCase().normalize('NFKC')])
    return await reply.code(201).header('location', `/api/${version}/candidatos/${row.id}`).header('etag', candidatoEtag(version, row))
      .send(candidato(version, { ...row, historico: [] }))
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return await reply.code(409).send(problem(409, 'Duplicate e-mail'))
    throw error
  }
})

/** Where an action leads from the current state, or undefined when the state does not allow it. */
function next (c: any, acao: string, metodo: string, target: any): { status: string, vagaId: string | null, transferidoDe: string | null } | undefined {
  if (!allowedActions(c).some(([rel, method]) => rel === acao && method === metodo)) return undefined
  if (acao === 'candidatar') return { status: 'inscrito', vagaId: target.id, transferidoDe: null }
  if (acao === 'transferir') return metodo === 'POST' ? { status: 'inscrito', vagaId: target.id, transferidoDe: c.vaga_id } : { status: 'inscrito', vagaId: c.transferido_de, transferidoDe: null }
  const status = metodo === 'DELETE' ? 'inscrito' : acao === 'aprovar' ? 'aprovado' : 'reprovado'
  return { status, vagaId: c.vaga_id, transferidoDe: c.transferido_de }
}

/** An action in its own transaction: the destination vaga share-locked, then the candidato; the change and its history entry written together. */
async function act (version: string, id: string, acao: string, metodo: string, ator: string, vagaId?: string): Promise<{ status: number, body?: any, etag?: string }> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    const outcome = await (async () => {
      const target = vagaId === undefined ? undefined : (await query(client, 'vaga-share', 'select id, titulo, status, versao from vagas where id = $1 for share', [vagaId]))[0]
      if (vagaId !== undefined && target === undefined) return { status: 422, body: problem(422, 'Vaga not found') }
      const [current] = await query(client, 'candidato-lock', `${DETAIL} for update of c`, [id])
      if (current === undefined) return { status: 404, body: problem(404, 'Not Found') }
      const to = next(current, acao, metodo, target)
      if (to === undefined) return { status: 409, body: problem(409, 'Action not allowed') }
      if (target !== undefined && target.status !== 'aberta') return { status: 409, body: problem(409, 'Vaga fechada') }
      if (acao === 'transferir' && metodo === 'POST' && target.id === current.vaga_id) return { status: 409, body: problem(409, 'Same vaga') }
      const [moved] = await query(client, 'candidato-move', 'update candidatos set status = $2, vaga_id = $3, transferido_de = $4, atualizado_em = now(), versao = versao + 1 where id = $1 returning atualizado_em, versao',
        [id, to.status, to.vagaId, to.transferidoDe])
      const [entry] = await query(client, 'acao-insert', 'insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator) values ($1, $2, $3, $4, $5, $6, $7, $8) returning *',
        [id, acao, metodo, current.status, to.status, current.vaga_id, to.vagaId, ator])
      const vagaNow = to.vagaId === null ? {} : to.vagaId === target?.id ? target : to.vagaId === current.vaga_id ? { titulo: current.vaga_titulo, status: current.vaga_status, versao: current.vaga_versao } : (await query(client, 'vaga-read', 'select titulo, status, versao from vagas where id = $1', [to.vagaId]))[0]
      const after = {
        ...current,
        status: to.status,
        vaga_id: to.vagaId,
        transferido_de: to.transferidoDe,
        atualizado_em: moved.atualizado_em,
        versao: moved.versao,
        vaga_titulo: vagaNow.titulo ?? null,
        vaga_status: vagaNow.status ?? null,
        vaga_versao: vagaNow.versao ?? null,
        historico: [...current.historico, entry]
      }
      return { status: 200, body: candidato(version, after), etag: candidatoEtag(version, after) }
    })()
    await client.query(outcome.status === 200 ? 'commit' : 'rollback')
    return outcome
  } catch (error) {
    await client.query('rollback')
    throw error
  } finally {
    client.release()
  }
}

const ACTIONS = new Set(['candidatar', 'aprovar', 'reprovar', 'transferir'])

app.route<{ Params: { version: string, id: string, acao: string }, Body: { vagaId?: string } | undefined }>({
  method: ['POST', 'DELETE'],
  url: '/api/:version/candidatos/:id/:acao',
  handler: async (request, reply) => {
    const version = versionOf(request.params, reply)
    if (version === undefined) return reply
    const { id, acao } = request.params
    const metodo = request.method
    const needsVaga = metodo === 'POST' && (acao === 'candidatar' || acao === 'transferir')
    if (!ACTIONS.has(acao) || (metodo === 'DELETE' && acao === 'candidatar')) return await reply.code(404).send(problem(404, 'Not Found'))
    if (needsVaga && typeof request.body?.vagaId !== 'string') return await reply.code(400).send(problem(400, 'vagaId is required'))
    const outcome = await act(version, id, acao, metodo, actor(request.headers.authorization), needsVaga ? request.body!.vagaId : undefined)
    if (outcome.etag !== undefined) reply.header('etag', outcome.etag)
    // A cancel answers 204: the client reads the candidato for its state.
    if (outcome.status === 200 && metodo === 'DELETE') return await reply.code(204).send()
    return await reply.code(outcome.status).send(outcome.body)
  }
})

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { app.close().then(() => pool.end()).then(() => process.exit(0), () => process.exit(1)) })
}
