import t, { type Test } from 'tap'
import { sql, type Kysely } from 'kysely'
import type { Schema } from '../../src/storage/schema.ts'
import { createCandidatosRepository, DuplicateEmailError } from '../../src/storage/candidatos-repository.ts'
import { createIdempotencyRepository } from '../../src/storage/idempotency-repository.ts'
import { InvalidPositionError } from '../../src/storage/listing.ts'
import { createVagasRepository } from '../../src/storage/vagas-repository.ts'
import { migratedDatabase, type Backend } from '../support/database.ts'

const POST = 'POST' as const
const DELETE = 'DELETE' as const

async function repositorySuite (t: Test, db: Kysely<Schema>): Promise<void> {
  const vagas = createVagasRepository(db)
  const candidatos = createCandidatosRepository(db)

  t.test('vagas: create, read, update with a precondition, list', async t => {
    const created = await vagas.create({ titulo: 'Backend', descricao: null, status: 'aberta' }, 'tester')
    t.match(created, { titulo: 'Backend', descricao: null, status: 'aberta', versao: 1 })
    t.match(created.id, /^[0-9a-f-]{36}$/)
    t.same(await vagas.findById(created.id), created)
    t.equal(await vagas.findById('00000000-0000-4000-8000-000000000000'), undefined)

    t.same(await vagas.update(created.id, { titulo: 'Outro' }, 'tester', current => current.versao === 7), { outcome: 'precondition-failed' })
    t.equal((await vagas.findById(created.id))?.titulo, 'Backend', 'a failed precondition changes nothing')
    const updated = await vagas.update(created.id, { descricao: 'Node.js' }, 'tester', current => current.versao === 1)
    t.match(updated, { outcome: 'ok', value: { titulo: 'Backend', descricao: 'Node.js', versao: 2 } })
    t.same(await vagas.update('00000000-0000-4000-8000-000000000000', { titulo: 'x' }, 'tester'), { outcome: 'not-found' })
  })

  t.test('candidatos: unique address in any case, partial updates', async t => {
    const ana = await candidatos.create({ nome: 'Ana', email: 'Ana@Example.com' }, 'tester')
    t.match(ana, { status: 'cadastrado', vagaId: null, vaga: null, historico: [], versao: 1 })
    await t.rejects(candidatos.create({ nome: 'Outra Ana', email: 'ana@example.COM' }, 'tester'), DuplicateEmailError)
    const bia = await candidatos.create({ nome: 'Bia', email: 'bia@example.com' }, 'tester')
    await t.rejects(candidatos.update(bia.id, { email: 'ANA@example.com' }, 'tester'), DuplicateEmailError)
    t.equal((await candidatos.findById(bia.id))?.email, 'bia@example.com')
    t.match(await candidatos.update(bia.id, { nome: 'Beatriz' }, 'tester'), { outcome: 'ok', value: { nome: 'Beatriz', email: 'bia@example.com', versao: 2 } })
    t.same(await candidatos.remove(bia.id, 'tester', current => current.versao === 1), { outcome: 'precondition-failed' })
    t.same(await candidatos.remove(bia.id, 'tester'), { outcome: 'ok' })
    t.same(await candidatos.remove(bia.id, 'tester'), { outcome: 'not-found' })
  })

  t.test('candidatos: an address is one address in any Unicode form and case; the stored text is what was sent', async t => {
    const jose = await candidatos.create({ nome: 'José', email: 'jos\u00e9@exemplo.com.br' }, 'tester')
    const forms = {
      decomposed: 'jose\u0301@exemplo.com.br',
      'upper case outside ASCII': 'JOS\u00c9@EXEMPLO.COM.BR',
      'upper case, decomposed': 'JOSE\u0301@exemplo.com.br',
      fullwidth: '\uff4a\uff4f\uff53\u00e9@exemplo.com.br'
    }
    for (const [form, email] of Object.entries(forms)) {
      await t.rejects(candidatos.create({ nome: 'Outro', email }, 'tester'), DuplicateEmailError, `${form} is the same address`)
    }
    const other = await candidatos.create({ nome: 'Outro', email: 'jose@exemplo.com.br' }, 'tester')
    t.equal(other.email, 'jose@exemplo.com.br', 'without the accent it is another address')
    await t.rejects(candidatos.update(other.id, { email: forms.fullwidth }, 'tester'), DuplicateEmailError)
    t.equal((await candidatos.findById(jose.id))?.email, 'jos\u00e9@exemplo.com.br')
    const together = await Promise.allSettled([candidatos.create({ nome: 'A', email: 'ÅSA@exemplo.com' }, 'tester'), candidatos.create({ nome: 'B', email: 'A\u030asa@exemplo.com' }, 'tester')])
    t.same(together.map(each => each.status).sort(), ['fulfilled', 'rejected'], 'two forms in one batch: one is created')
  })

  t.test('reads made at once each get their own record, seeing every earlier write', async t => {
    const vaga = await vagas.create({ titulo: 'Lote', descricao: null, status: 'aberta' }, 'tester')
    const people = await Promise.all(Array.from({ length: 12 }, async (_, i) => await candidatos.create({ nome: `Pessoa ${i}`, email: `lote-${i}@example.com` }, 'tester')))
    const missing = '00000000-0000-4000-8000-000000000001'
    const ids = [...people.map(p => p.id), missing, people[0]!.id, people[0]!.id]
    const [read, vagaRead] = await Promise.all([Promise.all(ids.map(async id => await candidatos.findById(id))), vagas.findById(vaga.id)])
    t.same(read.slice(0, 12).map(c => c?.email), people.map(p => p.email), 'each read gets its own record, in order')
    t.equal(read[12], undefined, 'an unknown id read beside them reads as absent')
    t.same([read[13]?.id, read[14]?.id], [people[0]!.id, people[0]!.id], 'the same id read twice at once')
    t.equal(vagaRead?.titulo, 'Lote')

    await candidatos.update(people[1]!.id, { nome: 'Renomeada' }, 'tester')
    t.equal((await candidatos.findById(people[1]!.id))?.nome, 'Renomeada', 'a read after a write sees it')
  })

  t.test('actions: every transition writes state and history together', async t => {
    const a = await vagas.create({ titulo: 'A', descricao: null, status: 'aberta' }, 'tester')
    const b = await vagas.create({ titulo: 'B', descricao: null, status: 'aberta' }, 'tester')
    const fechada = await vagas.create({ titulo: 'F', descricao: null, status: 'fechada' }, 'tester')
    const c = await candidatos.create({ nome: 'Caio', email: 'caio@example.com' }, 'tester')

    t.match(await candidatos.applyAction(c.id, { call: { action: 'aprovar', method: POST }, actor: 'u1' }),
      { outcome: 'refused', refusal: { code: 'ActionNotAllowed', currentStatus: 'cadastrado', allowedActions: [{ action: 'candidatar', method: 'POST' }] } })
    t.same(await candidatos.applyAction(c.id, { call: { action: 'candidatar', method: POST }, vagaId: '00000000-0000-4000-8000-000000000000', actor: 'u1' }),
      { outcome: 'target-not-found', vagaId: '00000000-0000-4000-8000-000000000000' })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'candidatar', method: POST }, vagaId: fechada.id, actor: 'u1' }),
      { outcome: 'refused', refusal: { code: 'VagaFechada' } })

    const applied = await candidatos.applyAction(c.id, { call: { action: 'candidatar', method: POST }, vagaId: a.id, actor: 'u1' })
    t.match(applied, { outcome: 'ok', value: { status: 'inscrito', vagaId: a.id, vaga: { id: a.id, titulo: 'A', status: 'aberta' }, versao: 2 } })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'transferir', method: POST }, vagaId: b.id, actor: 'u2' }),
      { outcome: 'ok', value: { status: 'inscrito', vagaId: b.id, transferidoDe: a.id } })
    t.same(await candidatos.applyAction(c.id, { call: { action: 'aprovar', method: POST }, actor: 'u2', precondition: current => current.versao === 1 }),
      { outcome: 'precondition-failed' })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'aprovar', method: POST }, actor: 'u3' }), { outcome: 'ok', value: { status: 'aprovado' } })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'aprovar', method: DELETE }, actor: 'u3' }), { outcome: 'ok', value: { status: 'inscrito' } })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'reprovar', method: POST }, actor: 'u3' }), { outcome: 'ok', value: { status: 'reprovado' } })
    t.match(await candidatos.applyAction(c.id, { call: { action: 'reprovar', method: DELETE }, actor: 'u3' }), { outcome: 'ok', value: { status: 'inscrito' } })
    const back = await candidatos.applyAction(c.id, { call: { action: 'transferir', method: DELETE }, actor: 'u4' })
    t.match(back, { outcome: 'ok', value: { status: 'inscrito', vagaId: a.id, transferidoDe: null, versao: 8 } })

    const detail = await candidatos.findById(c.id)
    t.same(detail?.historico.map(h => [h.acao, h.metodo, h.statusAnterior, h.status, h.vagaAnteriorId, h.vagaId, h.ator]), [
      ['candidatar', 'POST', 'cadastrado', 'inscrito', null, a.id, 'u1'],
      ['transferir', 'POST', 'inscrito', 'inscrito', a.id, b.id, 'u2'],
      ['aprovar', 'POST', 'inscrito', 'aprovado', b.id, b.id, 'u3'],
      ['aprovar', 'DELETE', 'aprovado', 'inscrito', b.id, b.id, 'u3'],
      ['reprovar', 'POST', 'inscrito', 'reprovado', b.id, b.id, 'u3'],
      ['reprovar', 'DELETE', 'reprovado', 'inscrito', b.id, b.id, 'u3'],
      ['transferir', 'DELETE', 'inscrito', 'inscrito', b.id, a.id, 'u4']
    ], 'the history names who did what, in order')
    t.ok(detail?.historico.every(h => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(h.em)))

    t.same(await vagas.remove(a.id, 'tester'), { outcome: 'has-candidatos' }, 'a vaga with candidatos stays')
    t.ok(await vagas.findById(a.id))
  })

  t.test('deleting a vaga a candidato was transferred from ends the way back', async t => {
    const a = await vagas.create({ titulo: 'Origem', descricao: null, status: 'aberta' }, 'tester')
    const b = await vagas.create({ titulo: 'Destino', descricao: null, status: 'aberta' }, 'tester')
    const c = await candidatos.create({ nome: 'Davi', email: 'davi@example.com' }, 'tester')
    await candidatos.applyAction(c.id, { call: { action: 'candidatar', method: POST }, vagaId: a.id, actor: 'u' })
    await candidatos.applyAction(c.id, { call: { action: 'transferir', method: POST }, vagaId: b.id, actor: 'u' })
    t.same(await vagas.remove(a.id, 'tester', current => current.versao === 99), { outcome: 'precondition-failed' })
    t.same(await vagas.remove(a.id, 'tester'), { outcome: 'ok' })
    t.same(await vagas.remove(a.id, 'tester'), { outcome: 'not-found' })
    const after = await candidatos.findById(c.id)
    t.match(after, { vagaId: b.id, transferidoDe: null, versao: 4 }, 'the candidato changed, so its version did')
    t.match(await candidatos.applyAction(c.id, { call: { action: 'transferir', method: DELETE }, actor: 'u' }), { outcome: 'refused' })
  })

  t.test('lists: filters, sorts, offset and keyset paging agree', async t => {
    await db.deleteFrom('candidatos').execute() // this test counts every row
    const vaga = await vagas.create({ titulo: 'Lista', descricao: null, status: 'aberta' }, 'tester')
    const names = ['maria', 'Mário', 'ana', 'Ana Paula', 'bruno', 'beto', 'carla', "o'neil; drop table candidatos; --", '100%_ana']
    const ids: string[] = []
    for (const [i, nome] of names.entries()) {
      const created = await candidatos.create({ nome, email: `lista${i}@example.com` }, 'tester')
      ids.push(created.id)
      if (i % 2 === 0) await candidatos.applyAction(created.id, { call: { action: 'candidatar', method: POST }, vagaId: vaga.id, actor: 'u' })
    }
    const inVaga = await candidatos.list({ filter: { vagaId: vaga.id }, sort: [{ field: 'nome', direction: 'asc' }], limit: 100, page: { kind: 'offset', offset: 0 } })
    t.equal(inVaga.total, 5)
    t.ok(inVaga.items.every(item => item.vagaId === vaga.id && item.status === 'inscrito'))
    const { rows: expectedInVaga } = await sql<{ id: string }>`select id from candidatos where vaga_id = ${vaga.id} order by nome, id`.execute(db)
    t.same(inVaga.items.map(i => i.id), expectedInVaga.map(r => r.id), 'sorted by nome')

    const q = await candidatos.list({ filter: { q: 'ANA' }, sort: [{ field: 'nome', direction: 'asc' }], limit: 100, page: { kind: 'offset', offset: 0 } })
    t.same(q.items.map(i => i.nome).sort(), ['Ana Paula', 'ana'].sort(), 'q matches the start of the name in any case')
    const literal = await candidatos.list({ filter: { q: '100%_' }, sort: [{ field: 'nome', direction: 'asc' }], limit: 100, page: { kind: 'offset', offset: 0 } })
    t.same(literal.items.map(i => i.nome), ['100%_ana'], '% and _ are literal')
    const wildcard = await candidatos.list({ filter: { q: '%' }, sort: [{ field: 'nome', direction: 'asc' }], limit: 100, page: { kind: 'offset', offset: 0 } })
    t.same(wildcard.items, [], 'a lone % matches nothing')
    t.equal((await candidatos.list({ filter: { q: "o'neil; drop" }, sort: [], limit: 5, page: { kind: 'offset', offset: 0 } })).total, 1)
    t.equal((await candidatos.list({ filter: { q: 'lista3@' }, sort: [], limit: 5, page: { kind: 'offset', offset: 0 } })).total, 1, 'q matches the start of the address')

    // Every sort, both ways, walked in pages of 2 by cursor and by offset, gives the same order as one big page.
    for (const sort of [
      [{ field: 'nome' as const, direction: 'asc' as const }],
      [{ field: 'criadoEm' as const, direction: 'desc' as const }, { field: 'nome' as const, direction: 'asc' as const }],
      [{ field: 'email' as const, direction: 'desc' as const }],
      [{ field: 'atualizadoEm' as const, direction: 'asc' as const }]
    ]) {
      const filter = { status: 'cadastrado' as const }
      const all = await candidatos.list({ filter, sort, limit: 100, page: { kind: 'offset', offset: 0 } })
      t.equal(all.items.length, 4)
      const byCursor: string[] = []
      let after
      for (let guard = 0; guard < 10; guard++) {
        const page = await candidatos.list({ filter, sort, limit: 2, page: { kind: 'cursor', after } })
        byCursor.push(...page.items.map(i => i.id))
        after = page.next
        if (after === undefined) break
      }
      const byOffset: string[] = []
      for (let offset = 0; offset < 10; offset += 2) {
        const page = await candidatos.list({ filter, sort, limit: 2, page: { kind: 'offset', offset } })
        t.equal(page.total, 4)
        byOffset.push(...page.items.map(i => i.id))
        if (page.next === undefined) break
      }
      t.same(byCursor, all.items.map(i => i.id), `cursor paging by ${JSON.stringify(sort)}`)
      t.same(byOffset, all.items.map(i => i.id), `offset paging by ${JSON.stringify(sort)}`)
    }
    const sortedNames = (await candidatos.list({ filter: {}, sort: [{ field: 'nome', direction: 'desc' }], limit: 100, page: { kind: 'offset', offset: 0 } })).items.map(i => i.nome)
    const { rows } = await sql<{ nome: string }>`select nome from candidatos order by nome desc, id`.execute(db)
    t.same(sortedNames, rows.map(r => r.nome), 'the order is the database order')

    await t.rejects(candidatos.list({ filter: {}, sort: [{ field: 'criadoEm', direction: 'asc' }], limit: 2, page: { kind: 'cursor', after: { values: ['not a date'], id: ids[0]! } } }), InvalidPositionError)
    await t.rejects(candidatos.list({ filter: {}, sort: [{ field: 'nome', direction: 'asc' }], limit: 2, page: { kind: 'cursor', after: { values: [1], id: ids[0]! } } }), InvalidPositionError)
    await t.rejects(candidatos.list({ filter: {}, sort: [], limit: 2, page: { kind: 'cursor', after: { values: ['x'], id: ids[0]! } } }), InvalidPositionError)
    for (const far of ['-271821-04-20T00:00:00.000Z', '-004714-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00.000Z']) {
      await t.rejects(candidatos.list({ filter: {}, sort: [{ field: 'criadoEm', direction: 'asc' }], limit: 2, page: { kind: 'cursor', after: { values: [far], id: ids[0]! } } }), InvalidPositionError, `${far} is refused, not sent to the database`)
    }
    for (const edge of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      const page = await candidatos.list({ filter: {}, sort: [{ field: 'criadoEm', direction: 'asc' }], limit: 2, page: { kind: 'cursor', after: { values: [edge], id: ids[0]! } } })
      t.ok(Array.isArray(page.items), `${edge} is a position the database can compare`)
    }

    const vagaList = await vagas.list({ filter: { status: 'aberta', q: 'lis' }, sort: [{ field: 'titulo', direction: 'asc' }], limit: 1, page: { kind: 'cursor' } })
    t.same(vagaList.items.map(v => v.titulo), ['Lista'])
    t.equal(vagaList.next, undefined)
  })

  t.test('pages asked for at once: each is its own statement and gets its own page', async t => {
    let statements = 0
    const counted = db.withPlugin({ transformQuery: args => args.node, transformResult: async args => { statements++; return args.result } })
    const lists = createCandidatosRepository(counted)
    const [a, b] = await Promise.all(['Junto A', 'Junto B'].map(async titulo => await vagas.create({ titulo, descricao: null, status: 'aberta' }, 'tester')))
    for (const [i, vaga] of [a!, a!, a!, b!, b!].entries()) {
      const created = await candidatos.create({ nome: `Junto ${i}`, email: `junto-${i}@example.com` }, 'tester')
      await candidatos.applyAction(created.id, { call: { action: 'candidatar', method: POST }, vagaId: vaga.id, actor: 'u' })
    }
    const newest = [{ field: 'criadoEm' as const, direction: 'desc' as const }]
    const requests = [
      { filter: { vagaId: a!.id, status: 'inscrito' as const }, sort: newest, limit: 2, page: { kind: 'offset' as const, offset: 0 } },
      { filter: { vagaId: b!.id, status: 'inscrito' as const }, sort: newest, limit: 2, page: { kind: 'offset' as const, offset: 0 } },
      { filter: { vagaId: a!.id, status: 'inscrito' as const }, sort: newest, limit: 2, page: { kind: 'offset' as const, offset: 2 } },
      { filter: { vagaId: a!.id, status: 'inscrito' as const }, sort: newest, limit: 2, page: { kind: 'offset' as const, offset: 0 } }
    ]
    const alone = []
    for (const request of requests) alone.push(await lists.list(request))
    t.same(alone.map(page => [page.total, page.items.length, page.next !== undefined]), [[3, 2, true], [2, 2, false], [3, 1, false], [3, 2, true]])

    statements = 0
    const together = await Promise.all(requests.map(async request => await lists.list(request)))
    t.same(together, alone, 'each page as it is alone: its rows, in its order, with its total')
    t.equal(statements, requests.length, 'one statement per page, its total included')

    const byCursor = await lists.list({ filter: { vagaId: a!.id, status: 'inscrito' }, sort: newest, limit: 2, page: { kind: 'cursor', after: alone[0]!.next } })
    t.same(byCursor.items.map(item => item.id), alone[2]!.items.map(item => item.id), 'the cursor page after the first is the offset page after it')

    const results = await Promise.allSettled([
      lists.list({ filter: { vagaId: 'not a uuid', status: 'inscrito' }, sort: newest, limit: 2, page: { kind: 'offset', offset: 0 } }),
      lists.list({ filter: { vagaId: a!.id, status: 'inscrito' }, sort: newest, limit: 2, page: { kind: 'offset', offset: 0 } })
    ])
    t.equal(results[0].status, 'rejected', 'a value the database refuses fails its own page')
    t.match(results[1], { status: 'fulfilled', value: { total: 3 } }, 'and no other page asked for at once')

    statements = 0
    const pastTheEnd = await lists.list({ filter: { vagaId: a!.id, status: 'inscrito' }, sort: newest, limit: 2, page: { kind: 'offset', offset: 5000 } })
    t.same([pastTheEnd.items, pastTheEnd.total], [[], 3], 'a page past the end still says how many match')
    t.equal(statements, 2, 'the page, then the count it had no row to carry')
  })

  t.test('creates made at once: each its own; a taken address fails its own create only', async t => {
    const created = await Promise.all(Array.from({ length: 6 }, async (_, i) => await candidatos.create({ nome: `Lote ${i}`, email: `Lote-Junto-${i}@example.com` }, 'tester')))
    t.same(created.map(each => [each.nome, each.email, each.status, each.versao]), Array.from({ length: 6 }, (_, i) => [`Lote ${i}`, `Lote-Junto-${i}@example.com`, 'cadastrado', 1]))
    t.equal(new Set(created.map(each => each.id)).size, 6)
    for (const each of created) t.same(await candidatos.findById(each.id), each, 'each answer is its own stored row')

    const results = await Promise.allSettled([
      candidatos.create({ nome: 'Outra', email: 'lote-junto-0@EXAMPLE.com' }, 'tester'),
      candidatos.create({ nome: 'Nova', email: 'lote-nova@example.com' }, 'tester'),
      candidatos.create({ nome: 'Gêmea', email: 'lote-gemea@example.com' }, 'tester'),
      candidatos.create({ nome: 'Gêmea 2', email: 'LOTE-GEMEA@example.com' }, 'tester')
    ])
    t.match(results[0], { status: 'rejected', reason: DuplicateEmailError }, 'an address taken before')
    t.match(results[1], { status: 'fulfilled', value: { nome: 'Nova' } }, 'the other creates made at once are made')
    t.same(results.slice(2).map(result => result.status).sort(), ['fulfilled', 'rejected'], 'of two creates of one address at once, one is made')
    t.equal((await candidatos.list({ filter: { q: 'lote-gemea' }, sort: [], limit: 5, page: { kind: 'offset', offset: 0 } })).total, 1)
  })

  t.test('actions made at once: each is decided on its own candidato, and a refused one writes nothing', async t => {
    const aberta = await vagas.create({ titulo: 'Ação em lote', descricao: null, status: 'aberta' }, 'tester')
    const fechada = await vagas.create({ titulo: 'Fechada em lote', descricao: null, status: 'fechada' }, 'tester')
    const people = []
    for (let i = 0; i < 5; i++) people.push(await candidatos.create({ nome: `Ação ${i}`, email: `acao-lote-${i}@example.com` }, 'tester'))
    await candidatos.applyAction(people[4]!.id, { call: { action: 'candidatar', method: POST }, vagaId: aberta.id, actor: 'setup' })
    const candidatar = { action: 'candidatar' as const, method: POST }
    const outcomes = await Promise.all([
      candidatos.applyAction(people[0]!.id, { call: candidatar, vagaId: aberta.id, actor: 'a' }),
      candidatos.applyAction(people[1]!.id, { call: candidatar, vagaId: aberta.id, actor: 'b' }),
      candidatos.applyAction(people[2]!.id, { call: candidatar, vagaId: fechada.id, actor: 'c' }),
      candidatos.applyAction(people[3]!.id, { call: candidatar, vagaId: '00000000-0000-4000-8000-000000000003', actor: 'd' }),
      candidatos.applyAction(people[4]!.id, { call: { action: 'aprovar', method: POST }, actor: 'e', precondition: current => current.versao === 2 }),
      candidatos.applyAction('00000000-0000-4000-8000-000000000004', { call: candidatar, vagaId: aberta.id, actor: 'f' })
    ])
    t.match(outcomes, [
      { outcome: 'ok', value: { status: 'inscrito', vagaId: aberta.id, vaga: { titulo: 'Ação em lote' }, versao: 2, historico: [{ acao: 'candidatar', ator: 'a' }] } },
      { outcome: 'ok', value: { status: 'inscrito', vagaId: aberta.id, historico: [{ ator: 'b' }] } },
      { outcome: 'refused', refusal: { code: 'VagaFechada' } },
      { outcome: 'target-not-found' },
      { outcome: 'ok', value: { status: 'aprovado', versao: 3, historico: [{ acao: 'candidatar' }, { acao: 'aprovar', ator: 'e' }] } },
      { outcome: 'not-found' }
    ])
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.outcome === 'ok') t.same(await candidatos.findById(people[i]!.id), outcome.value, 'the answer is what was stored')
    }
    t.match(await candidatos.findById(people[2]!.id), { status: 'cadastrado', versao: 1, historico: [] }, 'a refused action writes nothing')
  })

  t.test('idempotency: one effect per key, replay, mismatch', async t => {
    const idempotency = createIdempotencyRepository(db)
    let runs = 0
    const work = async (trx: Parameters<Parameters<typeof idempotency.run>[1]>[0]) => {
      runs++
      const vaga = await createVagasRepository(trx).create({ titulo: 'Idempotente', descricao: null, status: 'aberta' }, 'tester')
      return { statusCode: 201, headers: { location: `/api/v1/vagas/${vaga.id}` }, body: JSON.stringify({ id: vaga.id }) }
    }
    const request = { scope: 'u1 POST /vagas', key: 'k-1', fingerprint: 'f1' }
    const results = await Promise.all([idempotency.run(request, work), idempotency.run(request, work), idempotency.run(request, work)])
    t.equal(runs, 1, 'the work ran once, even for concurrent retries')
    t.equal(results.filter(r => r.outcome === 'first').length, 1)
    t.equal(results.filter(r => r.outcome === 'replayed').length, 2)
    const bodies = new Set(results.map(r => r.outcome === 'mismatch' ? '' : r.response.body))
    t.equal(bodies.size, 1, 'every caller got the same response')
    t.same(await idempotency.run({ ...request, fingerprint: 'f2' }, work), { outcome: 'mismatch' })
    t.match(await idempotency.run({ ...request, scope: 'u2 POST /vagas' }, work), { outcome: 'first' }, 'keys are per caller')
    const count = await db.selectFrom('vagas').select(eb => eb.fn.countAll<number>().as('n')).where('titulo', '=', 'Idempotente').executeTakeFirstOrThrow()
    t.equal(Number(count.n), 2)

    // A failed first attempt leaves nothing behind: the retry runs again.
    const failing = { scope: 'u1 POST /vagas', key: 'k-fail', fingerprint: 'f' }
    await t.rejects(idempotency.run(failing, async () => { throw new Error('boom') }))
    t.match(await idempotency.run(failing, work), { outcome: 'first' })

    // After 24 hours a key is forgotten.
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'k-1' and scope = 'u1 POST /vagas'`.execute(db)
    t.match(await idempotency.run(request, work), { outcome: 'first' }, 'an expired key runs again')
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'k-fail'`.execute(db)
    t.equal(await idempotency.purgeExpired(), 1)
  })
}

for (const backend of ['pglite', 'postgres'] as Backend[]) {
  t.test(`repositories on ${backend}`, async t => {
    const db = await migratedDatabase(t, backend)
    if (db === undefined) return
    await repositorySuite(t, db)
  })
}

t.test('concurrent aprovar and reprovar on real PostgreSQL: exactly one wins, nothing is lost', async t => {
  const db = await migratedDatabase(t, 'postgres')
  if (db === undefined) return
  const vagas = createVagasRepository(db)
  const candidatos = createCandidatosRepository(db)
  const vaga = await vagas.create({ titulo: 'Disputada', descricao: null, status: 'aberta' }, 'tester')
  for (let round = 0; round < 10; round++) {
    const c = await candidatos.create({ nome: `Concorrente ${round}`, email: `concorrente${round}@example.com` }, 'tester')
    await candidatos.applyAction(c.id, { call: { action: 'candidatar', method: POST }, vagaId: vaga.id, actor: 'setup' })
    const calls = Array.from({ length: 8 }, (_, i) => ({ action: i % 2 === 0 ? 'aprovar' as const : 'reprovar' as const, method: POST }))
    const outcomes = await Promise.all(calls.map((call, i) => candidatos.applyAction(c.id, { call, actor: `racer-${i}` })))
    const winners = outcomes.filter(o => o.outcome === 'ok')
    t.equal(winners.length, 1, `round ${round}: one success`)
    t.equal(outcomes.filter(o => o.outcome === 'refused').length, 7, 'the rest are refused')
    const final = await candidatos.findById(c.id)
    const winner = winners[0]!.outcome === 'ok' ? winners[0]!.value : undefined
    t.equal(final?.status, winner?.status, 'the stored state is the winner\'s')
    t.equal(final?.historico.length, 2, 'one history entry for the application, one for the winner')
    t.equal(final?.versao, 3)
  }
})

t.test('seed: demonstration data in every state, readable through the repositories', async t => {
  const db = await migratedDatabase(t, 'pglite')
  if (db === undefined) return
  const { seed } = await import('../../src/storage/seed.ts')
  const result = await seed(db, { vagas: 3, candidatos: 1001 })
  t.equal(result.vagaIds.length, 3)
  const candidatos = createCandidatosRepository(db)
  const sample = await candidatos.findById(result.sampleCandidatoId)
  t.match(sample, { status: 'inscrito', vagaId: result.vagaIds[0] })
  const page = await candidatos.list({ filter: { status: 'inscrito', vagaId: result.vagaIds[0] }, sort: [{ field: 'criadoEm', direction: 'desc' }], limit: 20, page: { kind: 'offset', offset: 0 } })
  t.equal(page.items.length, 20)
  t.ok(page.total! > 20)
  const all = await candidatos.list({ filter: {}, sort: [], limit: 1, page: { kind: 'offset', offset: 0 } })
  t.equal(all.total, 1001)
  await seed(db, { vagas: 1, candidatos: 1 })
  t.equal((await candidatos.list({ filter: {}, sort: [], limit: 1, page: { kind: 'offset', offset: 0 } })).total, 1002, 'seeding twice adds, never collides')
})
