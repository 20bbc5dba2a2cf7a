// The typed client's `paginate` against the running service: every item of a 1,000-item collection
// exactly once, by offset and `next` links in 1.0 and by cursor in 2.0, and no page more than the
// caller reads when it stops early.
import t from 'tap'
import { sql } from 'kysely'
import { createV1Client, createV2Client } from '../../clients/typescript/src/index.ts'
import { build, mintToken } from '../helper.ts'

const ITEMS = 1000

t.test('paginate walks 1,000 vagas once each in both paging styles, and stops when the caller does', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0' } })
  await app.health.lifecycle.reached('serving')
  // Seeded in one statement: what is tested is the reading. One creation time for all, so the
  // default sort (-criadoEm) orders them by id alone, a tie on every row.
  await sql`insert into vagas (titulo, status) select 'Vaga ' || i, 'aberta' from generate_series(1, ${ITEMS}) as i`.execute(app.storage.db)
  const { rows } = await sql<{ id: string }>`select id from vagas`.execute(app.storage.db)
  const stored = rows.map(row => row.id).sort()
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await mintToken({ scope: 'vagas:read', ttl: '1h' })
  const pages: string[] = []
  const fetch = async (request: Request) => { pages.push(new URL(request.url).search); return await globalThis.fetch(request) }

  const v1 = createV1Client({ baseUrl, token, fetch })
  const byOffset: string[] = []
  for await (const vaga of v1.paginate('/api/v1/vagas', { params: { query: { limit: 100 } } })) byOffset.push(vaga.id)
  t.equal(byOffset.length, ITEMS, '1.0: 1,000 items')
  t.same([...byOffset].sort(), stored, '1.0: each vaga exactly once')
  t.equal(pages.length, 10, '1.0: in ten pages')
  t.match(pages[1], /offset=100/, '1.0: by the offsets of the next links')

  pages.length = 0
  const v2 = createV2Client({ baseUrl, token, fetch })
  const byCursor: string[] = []
  for await (const vaga of v2.paginate('/api/v2/vagas', { params: { query: { limit: 100, status: 'aberta' } } })) byCursor.push(vaga.id)
  t.equal(byCursor.length, ITEMS, '2.0: 1,000 items')
  t.same([...byCursor].sort(), stored, '2.0: each vaga exactly once')
  t.same(byCursor, byOffset, '2.0: in the same order as 1.0')
  t.equal(pages.length, 10, '2.0: in ten pages')
  t.ok(pages.slice(1).every(search => /cursor=/.test(search) && /status=aberta/.test(search)), '2.0: by the cursors of the next links, filters kept')

  pages.length = 0
  const first: string[] = []
  for await (const vaga of v2.paginate('/api/v2/vagas', { params: { query: { limit: 100 } } })) {
    first.push(vaga.id)
    if (first.length === 150) break
  }
  t.same(first, byCursor.slice(0, 150), 'a caller that breaks after 150 items got the first 150')
  t.equal(pages.length, 2, 'from two page requests, no more')
})
