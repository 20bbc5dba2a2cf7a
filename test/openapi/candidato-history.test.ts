// A candidato answered alone (read, created, changed, acted on) always carries its `historico`:
// each version's document says so, and each of those answers has it, also after an action and a change.
import t from 'tap'
import { documentGroups } from '../../src/openapi/groups.ts'
import { bearer, build } from '../helper.ts'

interface Schema { required?: string[], properties?: Record<string, unknown>, items?: Schema }
interface Document { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> }

const ALONE = [
  ['get', '/candidatos/{id}', '200'], ['post', '/candidatos', '201'], ['put', '/candidatos/{id}', '200'],
  ['patch', '/candidatos/{id}', '200'], ['post', '/candidatos/{id}/aprovar', '200'], ['post', '/candidatos/{id}/transferir', '200']
] as const

t.test('each version\'s document marks historico required on every answer that carries one candidato', async t => {
  const app = await build(t)
  for (const group of documentGroups(app.apiVersions).filter(group => group.name !== 'ops')) {
    const doc = (await app.inject({ url: group.documentPath })).json() as Document
    const path = (route: string) => Object.keys(doc.paths).find(candidate => candidate.endsWith(route))!
    for (const [method, route, status] of ALONE) {
      const schema = doc.paths[path(route)]?.[method]?.responses[status]?.content?.['application/json']?.schema
      t.ok(schema?.required?.includes('historico'), `${group.name}: ${method.toUpperCase()} ${route} ${status}`)
    }
    const listItem = doc.paths[path('/candidatos')]!.get!.responses['200']!.content!['application/json']!.schema.properties!.items as Schema
    t.notOk(listItem.items?.required?.includes('historico'), `${group.name}: a list item carries none`)
  }
})

t.test('a candidato answered alone has its historico, from creation through actions and changes', async t => {
  const app = await build(t)
  await app.health.lifecycle.reached('serving')
  const headers = await bearer({ scope: 'vagas:write candidatos:read candidatos:write' })
  const vaga = (await app.inject({ method: 'POST', url: '/api/v2/vagas', headers, payload: { titulo: 'Analista' } })).json()
  const created = await app.inject({ method: 'POST', url: '/api/v2/candidatos', headers, payload: { nome: 'Ana Souza', email: 'ana@example.com' } })
  const id = created.json().id as string
  const answers = {
    created,
    candidatar: await app.inject({ method: 'POST', url: `/api/v2/candidatos/${id}/candidatar`, headers, payload: { vagaId: vaga.id } }),
    put: await app.inject({ method: 'PUT', url: `/api/v2/candidatos/${id}`, headers, payload: { nome: 'Ana S.', email: 'ana@example.com' } }),
    patch: await app.inject({ method: 'PATCH', url: `/api/v2/candidatos/${id}`, headers, payload: { nome: 'Ana' } }),
    aprovar: await app.inject({ method: 'POST', url: `/api/v1/candidatos/${id}/aprovar`, headers }),
    read: await app.inject({ url: `/api/v1/candidatos/${id}`, headers })
  }
  t.same(Object.values(answers).map(answer => answer.statusCode), [201, 200, 200, 200, 200, 200])
  t.same(Object.values(answers).map(answer => answer.json().historico?.length), [0, 1, 1, 1, 2, 2], 'each carries the history as it stands')
})
