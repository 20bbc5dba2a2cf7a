import t from 'tap'
import { buildWithToken as build } from '../../helper.ts'

t.test('GET /api/v{n}/user names the version in plain text', async t => {
  const app = await build(t)
  for (const [url, version] of [['/api/v1/user', '1.0'], ['/api/v2/user', '2.0'], ['/api/user', '1.0']]) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/plain/)
    t.equal(res.body, `user, served by API version ${version}`, url)
    t.equal(res.headers['x-api-version'], version, url)
  }
})

t.test('HEAD and OPTIONS work on the versioned path', async t => {
  const app = await build(t)
  const head = await app.inject({ method: 'HEAD', url: '/api/v2/user' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['x-api-version'], '2.0')
  const options = await app.inject({ method: 'OPTIONS', url: '/api/v2/user' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
})
