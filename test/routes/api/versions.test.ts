import t from 'tap'
import { buildWithToken as build } from '../../helper.ts'

t.test('GET /api/versions lists every version from the version table', async t => {
  const app = await build(t, { env: { API_V1_SUNSET_DATE: '2027-01-31' } })
  const res = await app.inject({ url: '/api/versions' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  const table = app.apiVersions.versions
  const listed = res.json().versions as Array<Record<string, unknown>>
  t.same(listed.map(v => v.version), table.map(v => v.version), 'every version of the table, in its order')
  t.same(listed[0], {
    version: '1.0',
    group: 'v1',
    status: 'deprecated',
    isDefault: true,
    deprecationDate: '2026-06-01T00:00:00.000Z',
    sunsetDate: '2027-01-31T00:00:00.000Z',
    links: [{ rel: 'openapi', href: '/docs/v1/openapi.json' }, { rel: 'docs', href: '/docs/v1' }]
  }, '1.0 with its dates')
  for (const [index, { version, group, deprecated }] of table.entries()) {
    if (deprecated) continue
    t.same(listed[index], {
      version,
      group,
      status: 'supported',
      isDefault: false,
      links: [{ rel: 'openapi', href: `/docs/${group}/openapi.json` }, { rel: 'docs', href: `/docs/${group}` }]
    }, `${version}, supported, without dates`)
  }
  t.equal(res.headers['api-supported-versions'], table.map(v => v.version).join(', '))
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
  t.equal(v2.json().versions.length, app.apiVersions.versions.length)
  const v1 = await app.inject({ url: '/api/v1/versions' })
  t.equal(v1.headers['x-api-version'], '1.0')
  t.ok(v1.headers.deprecation)
})
