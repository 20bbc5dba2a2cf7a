// The straightforward baseline of `npm run bench:workload` and `npm run bench:memory`: what a user
// would write with Fastify 5 and `pg` and compare the service with. One prepared statement per query,
// no batching; a read joins the vaga and aggregates the history with json_agg; a v1 list runs its page
// and its count(*) in parallel; a create is one insert ... returning; an action is a transaction that
// locks the row, checks its state and writes the change and its history entry. No conventions (no
// auth, versions, links, validators or problem details) beyond a body schema. Runs on node's defaults.
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
const app = Fastify()

const CANDIDATO = 'select c.id, c.nome, c.email, c.status, c.vaga_id, c.transferido_de, c.criado_em, c.atualizado_em, c.versao, ' +
  'v.titulo as vaga_titulo, v.status as vaga_status from candidatos c left join vagas v on v.id = c.vaga_id'
const DETAIL = 'select c.id, c.nome, c.email, c.status, c.vaga_id, c.transferido_de, c.criado_em, c.atualizado_em, c.versao, ' +
  'v.titulo as vaga_titulo, v.status as vaga_status, ' +
  "coalesce((select json_agg(h order by h.id) from candidato_acoes h where h.candidato_id = c.id), '[]') as historico " +
  'from candidatos c left join vagas v on v.id = c.vaga_id where c.id = $1'
const VAGA = 'select id, titulo, descricao, status, criado_em, atualizado_em, versao from vagas'

async function query (name: string, text: string, values: unknown[] = [], db: pg.Pool | pg.PoolClient = pool): Promise<any[]> {
  return (await db.query({ name, text, values })).rows
}

interface ListQuery { status?: string, vagaId?: string, limit?: string, offset?: string }

async function candidatosInVaga (version: string, vagaId: string, q: ListQuery) {
  const status = q.status ?? 'inscrito'
  const limit = Number(q.limit ?? 20)
  const offset = Number(q.offset ?? 0)
  const page = query('candidatos-page', `${CANDIDATO} where c.status = $1 and c.vaga_id = $2 order by c.criado_em desc, c.id limit $3 offset $4`, [status, vagaId, limit + 1, offset])
  if (version !== 'v1') return { items: (await page).slice(0, limit) }
  const [rows, [count]] = await Promise.all([page, query('candidatos-count', 'select count(*)::int as total from candidatos where status = $1 and vaga_id = $2', [status, vagaId])])
  return { items: rows.slice(0, limit), total: count.total }
}

type Rule = (current: any, vaga?: any) => { status: string, vagaId: string | null } | undefined

/** An action in a transaction: the row locked, the state checked, the change and its history entry written. */
async function act (id: string, acao: string, metodo: string, rule: Rule, vagaId?: string): Promise<{ status: number, body?: unknown }> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    const vaga = vagaId === undefined ? undefined : (await query('vaga-share', 'select id, status from vagas where id = $1 for share', [vagaId], client))[0]
    const [current] = await query('candidato-lock', 'select id, status, vaga_id from candidatos where id = $1 for update', [id], client)
    if (current === undefined) {
      await client.query('rollback')
      return { status: 404 }
    }
    const next = rule(current, vaga)
    if (next === undefined) {
      await client.query('rollback')
      return { status: 409 }
    }
    const [updated] = await query('candidato-update', 'update candidatos set status = $2, vaga_id = $3, atualizado_em = now(), versao = versao + 1 where id = $1 returning *', [id, next.status, next.vagaId], client)
    await query('acao-insert', 'insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator) values ($1, $2, $3, $4, $5, $6, $7, $8)',
      [id, acao, metodo, current.status, next.status, current.vaga_id, next.vagaId, 'plain'], client)
    await client.query('commit')
    return { status: 200, body: updated }
  } catch (error) {
    await client.query('rollback')
    throw error
  } finally {
    client.release()
  }
}

app.get('/ping', async () => 'pong')

app.get<{ Params: { id: string } }>('/api/:version/candidatos/:id', async (request, reply) => {
  const [row] = await query('candidato-detail', DETAIL, [request.params.id])
  return row ?? await reply.code(404).send()
})

app.get<{ Params: { version: string }, Querystring: ListQuery }>('/api/:version/candidatos', async request =>
  await candidatosInVaga(request.params.version, request.query.vagaId ?? '', request.query))

app.get<{ Params: { version: string, id: string }, Querystring: ListQuery }>('/api/:version/vagas/:id/candidatos', async (request, reply) => {
  const page = await candidatosInVaga(request.params.version, request.params.id, request.query)
  if (page.items.length === 0 && (await query('vaga-exists', 'select id from vagas where id = $1', [request.params.id])).length === 0) return await reply.code(404).send()
  return page
})

app.get<{ Params: { version: string }, Querystring: ListQuery }>('/api/:version/vagas', async request => {
  const limit = Number(request.query.limit ?? 20)
  const offset = Number(request.query.offset ?? 0)
  const page = query('vagas-page', `${VAGA} order by criado_em desc, id limit $1 offset $2`, [limit + 1, offset])
  if (request.params.version !== 'v1') return { items: (await page).slice(0, limit) }
  const [rows, [count]] = await Promise.all([page, query('vagas-count', 'select count(*)::int as total from vagas')])
  return { items: rows.slice(0, limit), total: count.total }
})

const createSchema = {
  body: {
    type: 'object',
    required: ['nome', 'email'],
    additionalProperties: false,
    properties: { nome: { type: 'string', minLength: 1, maxLength: 200 }, email: { type: 'string', maxLength: 254 } }
  }
}

app.post<{ Body: { nome: string, email: string } }>('/api/:version/candidatos', { schema: createSchema }, async (request, reply) => {
  const { nome, email } = request.body
  try {
    const [row] = await query('candidato-insert', "insert into candidatos (nome, email, email_chave, status) values ($1, $2, $3, 'cadastrado') returning *", [nome, email, email.toLowerCase()])
    return await reply.code(201).send(row)
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return await reply.code(409).send({ error: 'duplicate e-mail' })
    throw error
  }
})

async function answer (reply: { code: (status: number) => { send: (body?: unknown) => unknown } }, outcome: { status: number, body?: unknown }) {
  return await reply.code(outcome.status).send(outcome.body)
}

app.post<{ Params: { id: string }, Body: { vagaId: string } }>('/api/:version/candidatos/:id/candidatar', async (request, reply) => {
  const vagaId = request.body.vagaId
  return await answer(reply, await act(request.params.id, 'candidatar', 'POST',
    (current, vaga) => current.status === 'cadastrado' && vaga?.status === 'aberta' ? { status: 'inscrito', vagaId } : undefined, vagaId))
})

app.post<{ Params: { id: string } }>('/api/:version/candidatos/:id/aprovar', async (request, reply) =>
  await answer(reply, await act(request.params.id, 'aprovar', 'POST', current => current.status === 'inscrito' ? { status: 'aprovado', vagaId: current.vaga_id } : undefined)))

app.delete<{ Params: { id: string } }>('/api/:version/candidatos/:id/aprovar', async (request, reply) => {
  const outcome = await act(request.params.id, 'aprovar', 'DELETE', current => current.status === 'aprovado' ? { status: 'inscrito', vagaId: current.vaga_id } : undefined)
  return await answer(reply, outcome.status === 200 ? { status: 204 } : outcome)
})

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { app.close().then(() => pool.end()).then(() => process.exit(0), () => process.exit(1)) })
}
