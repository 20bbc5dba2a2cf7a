// The typed client's feed follower against the running service: stopped mid-page and started again
// from the position it handed back, it sees every event once, in order, new ones included; a
// refusal with Retry-After is waited out.
import t from 'tap'
import assert from 'node:assert/strict'
import { createV2Client, type Evento } from '../../clients/typescript/src/index.ts'
import { build, mintToken } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { startFaultProxy } from '../support/fault-proxy.ts'

t.test('a follower stopped and restarted mid-stream sees every event once, in order, and waits out a Retry-After', async t => {
  const app = await build(t, { env: { RATE_LIMIT_MAX: '0' } })
  await app.health.lifecycle.reached('serving')
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await mintToken({ scope: 'vagas:read vagas:write eventos:read', ttl: '1h' })
  const api = createV2Client({ baseUrl: url, token })
  const create = async (count: number, name: string) => {
    for (let i = 0; i < count; i++) assert.equal((await api.POST('/api/v2/vagas', { body: { titulo: `${name} ${i}` } })).response.status, 201)
  }
  await create(60, 'Antes')

  // The first run handles 37 events, storing the position after each, and stops in the middle of a page.
  const seen: Evento[] = []
  let stored: string | undefined
  for await (const { event, position } of api.followFeed('/api/v2/eventos', { init: { params: { query: { limit: 25 } } } })) {
    seen.push(event)
    stored = position
    if (seen.length === 37) break
  }
  await create(20, 'Parado')

  // The second starts from the stored position behind a network that refuses its first poll: 503, Retry-After: 1.
  const proxy = await startFaultProxy(t, url, '1')
  let refused = false
  proxy.choose = () => { if (refused) return undefined; refused = true; return '503' }
  const follower = createV2Client({ baseUrl: proxy.url, token, maxRetries: 0 })
  const stop = new AbortController()
  const started = Date.now()
  let firstAfterRestart = 0
  const running = (async () => {
    for await (const { event } of follower.followFeed('/api/v2/eventos', { from: stored, idleMs: 50, signal: stop.signal })) {
      if (firstAfterRestart === 0) firstAfterRestart = Date.now()
      seen.push(event)
    }
  })()
  await eventually(() => { assert.equal(seen.length, 80) })
  await create(15, 'Depois')
  await eventually(() => { assert.equal(seen.length, 95) })
  stop.abort()
  await running

  const feed = await app.inject({ url: '/api/v2/eventos?limit=100', headers: { authorization: `Bearer ${token}` } })
  const all = feed.json<{ items: Evento[] }>().items.map(event => event.id)
  t.equal(all.length, 95, 'the service wrote 95 events')
  t.same(seen.map(event => event.id), all, 'the two runs saw every event once, in the feed\'s order')
  t.ok(firstAfterRestart - started >= 1000, 'the refused poll was retried no sooner than its Retry-After')
  t.equal(proxy.seen[0]?.fault, '503', 'the restarted follower was refused once')
  t.match(proxy.seen[0]?.path, /cursor=/, 'and resumed from the stored position, not the start')
})
