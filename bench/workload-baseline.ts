// The data-path baseline of `npm run bench:workload`: bare Fastify 5 and `pg`, no conventions (no
// auth, validation, versions, links, validators or problem details). It answers the workload's URLs by
// running the statements the service runs for them (bench/workload-sql.ts) as named prepared
// statements, and returns the rows as JSON.
import Fastify from 'fastify'
import pg from 'pg'
import { SQL, type Statement } from './workload-sql.js'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
const app = Fastify()

type Runner = Pick<pg.Pool, 'query'> | pg.PoolClient

/** The statements of `work` in one transaction on one pooled connection. */
async function inTransaction<T> (work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await run(client, SQL.begin)
    const result = await work(client)
    await run(client, SQL.commit)
    return result
  } catch (error) {
    await client.query('rollback')
    throw error
  } finally {
    client.release()
  }
}

/** The feed's event for a changed candidato, written last in its transaction as the service does. */
async function candidatoEvent (client: pg.PoolClient, type: string, candidato: { id: string }): Promise<void> {
  await run(client, SQL.eventInsert, [[type], ['bench'], ['candidato'], [candidato.id], [JSON.stringify(candidato)]])
}

async function run (db: Runner, statement: Statement, values: unknown[] = []): Promise<any[]> {
  const result = statement.name === ''
    ? await db.query(statement.text)
    : await db.query({ name: statement.name, text: statement.text, values })
  return result.rows
}

interface ListQuery { status?: string, vagaId?: string, limit?: string, offset?: string }

async function candidatosPage (version: string, status: string, vagaId: string, query: ListQuery) {
  const limit = Number(query.limit ?? 20)
  if (version !== 'v1') return { items: (await run(pool, SQL.candidatosPage, [[status], [vagaId], [limit + 1]])).slice(0, limit) }
  const rows = await run(pool, SQL.candidatosPageOffset, [[status], [vagaId], [limit + 1], [Number(query.offset ?? 0)]])
  return { items: rows.slice(0, limit), total: Number(rows[0]?.total ?? 0) }
}

/** An action: the destination vaga share-locked, the candidato locked, the change and its history entry written in one statement that returns what it wrote, then its event. */
async function move (id: string, acao: string, metodo: string, target: (current: any) => { status: string, vagaId: string | null }, vagaId?: string) {
  return await inTransaction(async client => {
    if (vagaId !== undefined) await run(client, SQL.vagaShare, [[vagaId]])
    const [current] = await run(client, SQL.candidatoLock, [[id]])
    const next = target(current)
    const [written] = await run(client, SQL.candidatoMove, [[id], [next.status], [next.vagaId], [current.transferido_de], [current.status],
      [acao], [metodo], [current.vaga_id], ['bench']])
    const moved = { ...current, status: next.status, vaga_id: next.vagaId, ...written }
    await candidatoEvent(client, `candidato.${acao}${metodo === 'DELETE' ? '.cancelado' : ''}`, moved)
    return moved
  })
}

app.get('/ping', async () => 'pong')

app.get<{ Params: { id: string } }>('/api/:version/candidatos/:id', async (request) => (await run(pool, SQL.candidatosByIds, [[request.params.id]]))[0])

app.get<{ Params: { version: string }, Querystring: ListQuery }>('/api/:version/candidatos', async (request) => {
  const { status = 'inscrito', vagaId = '' } = request.query
  return await candidatosPage(request.params.version, status, vagaId, request.query)
})

app.get<{ Params: { version: string, id: string }, Querystring: ListQuery }>('/api/:version/vagas/:id/candidatos', async (request, reply) => {
  const page = await candidatosPage(request.params.version, request.query.status ?? 'inscrito', request.params.id, request.query)
  if (page.items.length === 0 && (await run(pool, SQL.vagaExists, [request.params.id])).length === 0) return await reply.code(404).send()
  return page
})

app.get<{ Params: { version: string }, Querystring: ListQuery }>('/api/:version/vagas', async (request) => {
  const limit = Number(request.query.limit ?? 20)
  if (request.params.version !== 'v1') return { items: (await run(pool, SQL.vagasPage, [[limit + 1]])).slice(0, limit) }
  const rows = await run(pool, SQL.vagasPageOffset, [[limit + 1], [0]])
  return { items: rows.slice(0, limit), total: Number(rows[0]?.total ?? 0) }
})

app.post<{ Body: { nome: string, email: string } }>('/api/:version/candidatos', async (request, reply) => {
  const row = await inTransaction(async client => {
    const [created] = await run(client, SQL.candidatoInsert, [[request.body.nome], [request.body.email], [request.body.email.toLowerCase()]])
    await candidatoEvent(client, 'candidato.criado', created)
    return created
  })
  return reply.code(201).send(row)
})

app.post<{ Params: { id: string }, Body: { vagaId: string } }>('/api/:version/candidatos/:id/candidatar', async (request) => {
  const vagaId = request.body.vagaId
  return await move(request.params.id, 'candidatar', 'POST', () => ({ status: 'inscrito', vagaId }), vagaId)
})

app.post<{ Params: { id: string } }>('/api/:version/candidatos/:id/aprovar', async (request) =>
  await move(request.params.id, 'aprovar', 'POST', current => ({ status: 'aprovado', vagaId: current.vaga_id })))

app.delete<{ Params: { id: string } }>('/api/:version/candidatos/:id/aprovar', async (request, reply) => {
  await move(request.params.id, 'aprovar', 'DELETE', current => ({ status: 'inscrito', vagaId: current.vaga_id }))
  return reply.code(204).send()
})

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { app.close().then(() => pool.end()).then(() => process.exit(0), () => process.exit(1)) })
}
