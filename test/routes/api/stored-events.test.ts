// An event keeps the subject's record as it was written: one stored before a migration added a field
// lacks that field, and must still be served by every version of the feed, whatever its
// representation has become. A field a migration adds to existing rows can only be nullable (or
// defaulted), so each nullable column stands in for such a field: the test removes it from the stored
// events and reads them back through every version that serves the feed.
import t from 'tap'
import { sql } from 'kysely'
import { ALL_SCOPES, bearer, build } from '../../helper.ts'
import { eventoVersions } from '../../../src/representations/evento-versions.ts'
import { servedVersions } from '../../../src/versioning/profiles.ts'

const camelCase = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

t.test('events stored before a field existed are served by every version of the feed', async t => {
  const app = await build(t)
  await app.health.lifecycle.reached('serving')
  const writer = await bearer({ scope: ALL_SCOPES })
  const reader = await bearer({ scope: 'eventos:read' })
  const post = async (url: string, payload?: object) => {
    const res = await app.inject({ method: 'POST', url, headers: writer, ...(payload !== undefined && { payload }) })
    t.ok(res.statusCode < 300, `POST ${url}: ${res.statusCode}`)
    return res.json()
  }
  // Every nullable field holds a value: a vaga with a description, a candidato in a vaga after a transfer.
  const from = await post('/api/v2/vagas', { titulo: 'Backend', descricao: 'Node.js' })
  const to = await post('/api/v2/vagas', { titulo: 'Frontend', descricao: 'CSS' })
  const candidato = await post('/api/v2/candidatos', { nome: 'Caio', email: `caio.${Date.now()}@example.com` })
  await post(`/api/v2/candidatos/${candidato.id}/candidatar`, { vagaId: from.id })
  await post(`/api/v2/candidatos/${candidato.id}/transferir`, { vagaId: to.id })
  const subjects = [from.id, to.id, candidato.id]

  const { rows: nullable } = await sql<{ table_name: 'vagas' | 'candidatos', column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and table_name in ('vagas', 'candidatos') and is_nullable = 'YES'`.execute(app.storage.db)
  // The vaga summary a candidato's record carries is nullable too (a candidato before applying).
  const fieldsOf = (table: string) => nullable.filter(c => c.table_name === table).map(c => camelCase(c.column_name))
  const missing = { vaga: fieldsOf('vagas'), candidato: [...fieldsOf('candidatos'), 'vaga'] }
  t.ok(missing.vaga.includes('descricao') && missing.candidato.includes('transferidoDe'), `fields removed: ${JSON.stringify(missing)}`)
  for (const [kind, fields] of Object.entries(missing)) {
    const { numAffectedRows } = await sql`update eventos set dados = dados - ${fields}::text[]
      where sujeito_tipo = ${kind} and sujeito_id = any(${subjects}::uuid[]) and dados is not null and dados ?| ${fields}::text[]`.execute(app.storage.db)
    t.ok(Number(numAffectedRows) > 0, `the stored ${kind} events lose ${fields.join(', ')}`)
  }

  const feeds = servedVersions(app.apiVersions, eventoVersions).filter(served => served.profile.served)
  t.ok(feeds.length > 0)
  for (const { version } of feeds) {
    const path = `/api/v${version.replace(/\.0$/, '')}/eventos?limit=100`
    const res = await app.inject({ url: path, headers: reader })
    if (!t.equal(res.statusCode, 200, `${path}: ${res.body}`)) continue
    const items = (res.json() as { items: Array<{ sujeito: { id: string }, dados: Record<string, unknown> | null }> }).items
      .filter(item => subjects.includes(item.sujeito.id) && item.dados !== null)
    t.ok(items.length >= 5, `${version}: the events of the three subjects`)
    for (const item of items) {
      const dados = item.dados!
      for (const field of ['descricao', 'transferidoDe']) {
        if (field in dados) t.equal(dados[field], null, `${version}: ${field} of an event stored without it is null`)
      }
    }
  }
})
