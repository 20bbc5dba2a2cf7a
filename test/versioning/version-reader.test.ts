import t from 'tap'
import type { IncomingMessage } from 'node:http'
import { testConfig } from '../helper.ts'
import { versionedHref } from '../../src/versioning/href.ts'
import { createVersionReader, normalizeVersion, splitVersionSegment } from '../../src/versioning/version-reader.ts'
import { rewriteVersionedUrl } from '../../src/versioning/routing.ts'
import { buildVersionTable, groupOf } from '../../src/versioning/versions.ts'

const table = buildVersionTable(testConfig())
const read = createVersionReader({ table, vendorName: 'recrutamento' })
const request = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as IncomingMessage

t.test('version labels: a major alone means major.0; anything else is malformed', async t => {
  t.equal(normalizeVersion('2'), '2.0')
  t.equal(normalizeVersion('2.0'), '2.0')
  t.equal(normalizeVersion('02.00'), '2.0')
  t.equal(normalizeVersion('1.5'), '1.5')
  for (const bad of ['', 'v2', '2.0.0', '2.', '.5', 'banana', ' 2', '2.0-beta']) t.equal(normalizeVersion(bad), undefined, bad)
})

t.test('the URL segment is split off /api paths only', async t => {
  t.same(splitVersionSegment('/api/v2/vagas/1?x=1'), { segment: '2', url: '/api/vagas/1?x=1' })
  t.same(splitVersionSegment('/api/v1.0/user'), { segment: '1.0', url: '/api/user' })
  t.same(splitVersionSegment('/api/v2'), { segment: '2', url: '/api' })
  t.equal(splitVersionSegment('/api/vagas'), undefined, 'a resource that starts with v is no version')
  t.equal(splitVersionSegment('/apiv2/x'), undefined)
  t.equal(rewriteVersionedUrl({ url: '/ping', headers: {} } as IncomingMessage), '/ping')
  t.equal(rewriteVersionedUrl({ url: '/api/v2/user', headers: {} } as IncomingMessage), '/api/user')
  t.equal(rewriteVersionedUrl({ url: '/apix/v2/user', headers: {} } as IncomingMessage), '/apix/v2/user')
})

t.test('hrefs and group names follow the version', async t => {
  t.equal(groupOf('1.0'), 'v1')
  t.equal(groupOf('2.1'), 'v2.1')
  t.equal(versionedHref('2.0', '/vagas/7'), '/api/v2/vagas/7')
  t.equal(versionedHref('1.0', '/api/vagas'), '/api/v1/vagas')
  t.equal(versionedHref('2.0', 'candidatos'), '/api/v2/candidatos')
})

t.test('the reader combines every way and names conflicts', async t => {
  t.equal(read(request({}), undefined).version?.version, '1.0')
  t.equal(read(request({}), undefined).named, false)
  t.equal(read(request({ accept: 'APPLICATION/VND.RECRUTAMENTO-V2+JSON' }), undefined).version?.version, '2.0', 'media types are case-insensitive')
  t.equal(read(request({ accept: 'application/json;X-API-Version="2"' }), undefined).version?.version, '2.0')
  t.equal(read(request({ accept: 'application/json; charset=utf-8' }), undefined).version?.version, '1.0', 'other parameters name nothing')
  t.equal(read(request({ 'x-api-version': ['2.0', '2'] }), undefined).version?.version, '2.0', 'repeated headers that agree')
  const ambiguous = read(request({ accept: 'application/json; x-api-version=1.0', 'content-type': 'application/json; x-api-version=2.0' }), undefined)
  t.match(ambiguous.problem?.fields, { code: 'AmbiguousApiVersion', sources: [{ source: 'accept-parameter', value: '1.0' }, { source: 'content-type-parameter', value: '2.0' }] })
  const invalid = read(request({ 'x-api-version': '\u0000'.repeat(100) }), undefined)
  t.equal(invalid.problem?.fields.code, 'InvalidApiVersion')
  t.notOk((invalid.problem?.fields.detail ?? '').includes('\u0000'), 'client text is made printable')
  t.ok((invalid.problem?.fields.detail ?? '').length < 200, 'and short')
})
