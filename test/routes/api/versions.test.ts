import t from 'tap'
import { buildWithToken as build } from '../../helper.js'

t.test('GET /api/versions lists every version from the version table', async t => {
  const app = await build(t, { env: { API_V1_SUNSET_DATE: '2027-01-31' } })
  const res = await app.inject({ url: '/api/versions' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(res.json(), {
    versions: [
      {
        version: '1.0',
        group: 'v1',
        status: 'deprecated',
        isDefault: true,
        deprecationDate: '2026-06-01T00:00:00.000Z',
        sunsetDate: '2027-01-31T00:00:00.000Z',
        links: [{ rel: 'openapi', href: '/docs/v1/openapi.json' }, { rel: 'docs', href: '/docs/v1' }]
      },
      {
        version: '2.0',
        group: 'v2',
        status: 'supported',
        isDefault: false,
        links: [{ rel: 'openapi', href: '/docs/v2/openapi.json' }, { rel: 'docs', href: '/docs/v2' }]
      }
    ]
  })
  t.equal(res.headers['api-supported-versions'], '1.0, 2.0')
  for (const version of res.json().versions) {
    for (const link of version.links) t.equal((await app.inject({ url: link.href })).statusCode, 200, link.href)
  }
})

t.test('GET /api/versions answers in every version, with the vendor media type when asked', async t => {
  const app = await build(t)
  const v2 = await app.inject({ url: '/api/v2/versions', headers: { accept: 'application/vnd.recrutamento-v2+json' } })
  t.equal(v2.statusCode, 200)
  t.equal(v2.headers['x-api-version'], '2.0')
  t.equal(v2.headers['content-type'], 'application/vnd.recrutamento-v2+json; charset=utf-8')
  t.equal(v2.json().versions.length, 2)
  const v1 = await app.inject({ url: '/api/v1/versions' })
  t.equal(v1.headers['x-api-version'], '1.0')
  t.ok(v1.headers.deprecation)
})
