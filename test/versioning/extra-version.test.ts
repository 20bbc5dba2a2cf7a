import t from 'tap'
import { Type } from '@sinclair/typebox'
import { CandidatoV2Schema, candidatoV2 } from '../../src/representations/candidato.ts'
import type { CandidatoProfile } from '../../src/representations/candidato-versions.ts'
import { API_VERSION_ROWS, type ApiVersionRow } from '../../src/versioning/versions.ts'
import { ALL_SCOPES, build, buildServing } from '../helper.ts'
import { nextVersion } from '../support/next-version.ts'

// A version that exists only as a row of the version table (the next major after the table's
// highest), carrying one representation change: candidatos gain `primeiroNome`. Everything else it
// inherits from the version before.
const candidatosInNext: Partial<CandidatoProfile> = {
  schema: Type.Object({ ...CandidatoV2Schema.properties, primeiroNome: Type.String() }),
  toBody: (candidato, href) => ({ ...candidatoV2(candidato, href), primeiroNome: candidato.nome.split(' ')[0] })
}
const { version, group } = nextVersion()
const WITH_NEXT: readonly ApiVersionRow[] = [...API_VERSION_ROWS, { version, profiles: { candidatos: candidatosInNext } }]

const ready = async (t: Parameters<typeof build>[0]) => await buildServing(t, { versionRows: WITH_NEXT }, { scope: ALL_SCOPES })

t.test('a version added to the table is served by every resource, with its one representation change', async t => {
  const { app, auth } = await ready(t)

  const vaga = await app.inject({ method: 'POST', url: `/api/${group}/vagas`, headers: auth, payload: { titulo: 'Desenvolvedora backend' } })
  t.equal(vaga.statusCode, 201, vaga.body)
  t.equal(vaga.headers['x-api-version'], version)
  t.equal(vaga.headers['api-supported-versions'], [...API_VERSION_ROWS.map(row => row.version), version].join(', '))
  const vagaId = vaga.json().id as string
  t.equal(vaga.headers.location, `/api/${group}/vagas/${vagaId}`)
  t.match(vaga.json().links, [{ rel: 'self', href: `/api/${group}/vagas/${vagaId}` }])

  const vagas = await app.inject({ url: `/api/${group}/vagas?limit=1`, headers: auth })
  t.equal(vagas.statusCode, 200)
  t.match(vagas.json(), { limit: 1, links: [{ rel: 'self', href: `/api/${group}/vagas?limit=1` }] })
  t.notOk('total' in vagas.json(), 'paged by cursor, as in 2.0')

  const created = await app.inject({ method: 'POST', url: `/api/${group}/candidatos`, headers: auth, payload: { nome: 'Ana Souza', email: 'ana@example.com' } })
  t.equal(created.statusCode, 201, created.body)
  const ana = created.json()
  t.match(ana, { nome: 'Ana Souza', primeiroNome: 'Ana', vaga: null })
  t.equal(created.headers.location, `/api/${group}/candidatos/${ana.id as string}`)

  const applied = await app.inject({ method: 'POST', url: `/api/${group}/candidatos/${ana.id as string}/candidatar`, headers: auth, payload: { vagaId } })
  t.equal(applied.statusCode, 200, applied.body)
  t.match(applied.json(), { primeiroNome: 'Ana', status: 'inscrito', vaga: { id: vagaId, titulo: 'Desenvolvedora backend' } })

  const inVaga = await app.inject({ url: `/api/${group}/vagas/${vagaId}/candidatos`, headers: auth })
  t.equal(inVaga.statusCode, 200)
  t.match(inVaga.json().items, [{ id: ana.id, primeiroNome: 'Ana' }])

  const read = await app.inject({ url: `/api/${group}/candidatos/${ana.id as string}`, headers: auth })
  t.match(read.json(), { primeiroNome: 'Ana', historico: [{ acao: 'candidatar' }] })
  t.ok(read.headers.etag?.startsWith(`"${version}-`), `an ETag of ${version}: ${String(read.headers.etag)}`)
  const in2 = await app.inject({ url: `/api/v2/candidatos/${ana.id as string}`, headers: auth })
  t.equal(in2.statusCode, 200)
  t.notOk('primeiroNome' in in2.json(), '2.0 keeps its own representation')
})

t.test('a version added to the table has its OpenAPI document, its docs page and its row in /api/versions', async t => {
  const { app, auth } = await ready(t)

  const document = await app.inject({ url: `/docs/${group}/openapi.json` })
  t.equal(document.statusCode, 200)
  const paths = document.json().paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>>
  for (const path of [`/api/${group}/vagas`, `/api/${group}/vagas/{id}`, `/api/${group}/vagas/{id}/candidatos`, `/api/${group}/candidatos`, `/api/${group}/candidatos/{id}`, `/api/${group}/candidatos/{id}/candidatar`]) {
    t.ok(paths[path], `the ${version} document has ${path}`)
  }
  t.same(Object.keys(paths).filter(path => !path.startsWith(`/api/${group}/`)), [], `only ${version} paths`)
  t.ok(paths[`/api/${group}/candidatos/{id}`]!.get!.responses['200']!.content!['application/json']!.schema.properties!.primeiroNome, `the ${version} schema`)
  t.equal((await app.inject({ url: `/docs/${group}/json` })).body, document.body, 'the docs page reads the same document')

  const page = await app.inject({ url: `/docs/${group}` })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal((await app.inject({ url: '/docs' })).headers.location, `/docs/${group}`, 'the newest version is the current one')

  const versions = await app.inject({ url: '/api/versions', headers: auth })
  t.equal(versions.statusCode, 200, versions.body)
  t.match(versions.json().versions, [...API_VERSION_ROWS.map(row => ({ version: row.version })), { version, group, links: [{ rel: 'openapi', href: `/docs/${group}/openapi.json` }, { rel: 'docs', href: `/docs/${group}` }] }])
})
