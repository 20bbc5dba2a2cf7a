import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { CandidatoV2Schema, candidatoV2 } from '../../src/http/resources/candidato.js'
import type { CandidatoProfile } from '../../src/http/resources/candidato-versions.js'
import { API_VERSION_ROWS, type ApiVersionRow } from '../../src/versioning/versions.js'
import { bearer, build } from '../helper.js'

// A version 3.0 that exists only as a row of the version table, carrying one representation change:
// candidatos gain `primeiroNome`. Everything else it inherits from 2.0.
const candidatosIn3: Partial<CandidatoProfile> = {
  schema: Type.Object({ ...CandidatoV2Schema.properties, primeiroNome: Type.String() }),
  toBody: (candidato, href) => ({ ...candidatoV2(candidato, href), primeiroNome: candidato.nome.split(' ')[0] })
}
const WITH_3: readonly ApiVersionRow[] = [...API_VERSION_ROWS, { version: '3.0', profiles: { candidatos: candidatosIn3 } }]

async function ready (t: Parameters<typeof build>[0]): Promise<{ app: FastifyInstance, auth: { authorization: string } }> {
  const app = await build(t, { versionRows: WITH_3 })
  await app.health.lifecycle.reached('serving')
  return { app, auth: await bearer({ scope: 'vagas:read vagas:write candidatos:read candidatos:write' }) }
}

t.test('a version added to the table is served by every resource, with its one representation change', async t => {
  const { app, auth } = await ready(t)

  const vaga = await app.inject({ method: 'POST', url: '/api/v3/vagas', headers: auth, payload: { titulo: 'Desenvolvedora backend' } })
  t.equal(vaga.statusCode, 201, vaga.body)
  t.equal(vaga.headers['x-api-version'], '3.0')
  t.equal(vaga.headers['api-supported-versions'], '1.0, 2.0, 3.0')
  const vagaId = vaga.json().id as string
  t.equal(vaga.headers.location, `/api/v3/vagas/${vagaId}`)
  t.match(vaga.json().links, [{ rel: 'self', href: `/api/v3/vagas/${vagaId}` }])

  const vagas = await app.inject({ url: '/api/v3/vagas?limit=1', headers: auth })
  t.equal(vagas.statusCode, 200)
  t.match(vagas.json(), { limit: 1, links: [{ rel: 'self', href: '/api/v3/vagas?limit=1' }] })
  t.notOk('total' in vagas.json(), 'paged by cursor, as in 2.0')

  const created = await app.inject({ method: 'POST', url: '/api/v3/candidatos', headers: auth, payload: { nome: 'Ana Souza', email: 'ana@example.com' } })
  t.equal(created.statusCode, 201, created.body)
  const ana = created.json()
  t.match(ana, { nome: 'Ana Souza', primeiroNome: 'Ana', vaga: null })
  t.equal(created.headers.location, `/api/v3/candidatos/${ana.id as string}`)

  const applied = await app.inject({ method: 'POST', url: `/api/v3/candidatos/${ana.id as string}/candidatar`, headers: auth, payload: { vagaId } })
  t.equal(applied.statusCode, 200, applied.body)
  t.match(applied.json(), { primeiroNome: 'Ana', status: 'inscrito', vaga: { id: vagaId, titulo: 'Desenvolvedora backend' } })

  const inVaga = await app.inject({ url: `/api/v3/vagas/${vagaId}/candidatos`, headers: auth })
  t.equal(inVaga.statusCode, 200)
  t.match(inVaga.json().items, [{ id: ana.id, primeiroNome: 'Ana' }])

  const read = await app.inject({ url: `/api/v3/candidatos/${ana.id as string}`, headers: auth })
  t.match(read.json(), { primeiroNome: 'Ana', historico: [{ acao: 'candidatar' }] })
  t.match(read.headers.etag, /^"3\.0-/)
  const in2 = await app.inject({ url: `/api/v2/candidatos/${ana.id as string}`, headers: auth })
  t.equal(in2.statusCode, 200)
  t.notOk('primeiroNome' in in2.json(), '2.0 keeps its own representation')
})

t.test('a version added to the table has its OpenAPI document, its docs page and its row in /api/versions', async t => {
  const { app, auth } = await ready(t)

  const document = await app.inject({ url: '/docs/v3/openapi.json' })
  t.equal(document.statusCode, 200)
  const paths = document.json().paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>>
  for (const path of ['/api/v3/vagas', '/api/v3/vagas/{id}', '/api/v3/vagas/{id}/candidatos', '/api/v3/candidatos', '/api/v3/candidatos/{id}', '/api/v3/candidatos/{id}/candidatar']) {
    t.ok(paths[path], `the 3.0 document has ${path}`)
  }
  t.same(Object.keys(paths).filter(path => !path.startsWith('/api/v3/')), [], 'only 3.0 paths')
  t.ok(paths['/api/v3/candidatos/{id}']!.get!.responses['200']!.content!['application/json']!.schema.properties!.primeiroNome, 'the 3.0 schema')
  t.equal((await app.inject({ url: '/docs/v3/json' })).body, document.body, 'the docs page reads the same document')

  const page = await app.inject({ url: '/docs/v3' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal((await app.inject({ url: '/docs' })).headers.location, '/docs/v3', 'the newest version is the current one')

  const versions = await app.inject({ url: '/api/versions', headers: auth })
  t.equal(versions.statusCode, 200, versions.body)
  t.match(versions.json().versions, [{ version: '1.0' }, { version: '2.0' }, { version: '3.0', group: 'v3', links: [{ rel: 'openapi', href: '/docs/v3/openapi.json' }, { rel: 'docs', href: '/docs/v3' }] }])
})
