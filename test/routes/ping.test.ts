import t from 'tap'
import { build } from '../helper.ts'

t.test('GET /ping answers pong as plain text', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/ping' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain/)
  t.equal(res.body, 'pong')
  t.equal(res.headers['content-length'], '4')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers.pragma, 'no-cache')
  t.equal(res.headers.expires, '0')
  t.ok(res.headers['last-modified'])
  t.ok(res.headers['x-request-id'])
})

t.test('HEAD /ping answers 200 with no body', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'HEAD', url: '/ping' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.match(res.headers['content-type'], /^text\/plain/)
})
