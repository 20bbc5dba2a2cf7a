// Lists write their items and pages as JSON text (collection.ts): it must be, byte for byte, what the
// response schema's serializer writes for the same representation, whatever text the records hold.
import t from 'tap'
import fc from 'fast-check'
import build from 'fast-json-stringify'
import { CANDIDATO_STATUSES } from '../../../src/domain/candidato.js'
import { CandidatoV1Schema, CandidatoV2Schema, candidatoV1, candidatoV1Json, candidatoV2, candidatoV2Json } from '../../../src/http/resources/candidato.js'
import { pageJson, pageSchemaV1, pageSchemaV2 } from '../../../src/http/resources/collection.js'
import { VagaSchema, vagaJson, vagaRepresentation } from '../../../src/http/resources/vaga.js'
import type { CandidatoRecord } from '../../../src/storage/candidatos-repository.js'
import type { VagaRecord } from '../../../src/storage/vagas-repository.js'
import { versionedHref } from '../../../src/versioning/href.js'
import { queryString } from '../../../src/http/collection-query.js'
import { textValue } from '../../fuzz/hostile-values.js'

const id = fc.uuid().map(value => value.toLowerCase())
const instant = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map(date => date.toISOString())
const vagaStatus = fc.constantFrom('aberta' as const, 'fechada' as const)

const vaga: fc.Arbitrary<VagaRecord> = fc.record({
  id, titulo: textValue(), descricao: fc.option(textValue()), status: vagaStatus, criadoEm: instant, atualizadoEm: instant, versao: fc.nat()
})

const candidato: fc.Arbitrary<CandidatoRecord> = fc.record({
  id,
  nome: textValue(),
  email: textValue(),
  status: fc.constantFrom(...CANDIDATO_STATUSES),
  vagaId: fc.option(id),
  transferidoDe: fc.option(id),
  criadoEm: instant,
  atualizadoEm: instant,
  versao: fc.nat(),
  vaga: fc.option(fc.record({ id, titulo: textValue(), status: vagaStatus, versao: fc.nat(), atualizadoEm: instant }))
}).map(record => ({ ...record, vagaId: record.vaga?.id ?? record.vagaId }))

const href = fc.constantFrom('1.0', '2.0').map(version => (path: string) => versionedHref(version, path))

t.test('a candidato list item is what the schema serializer writes of its representation, in both versions', async t => {
  const v1 = build(CandidatoV1Schema)
  const v2 = build(CandidatoV2Schema)
  fc.assert(fc.property(candidato, href, (record, link) => {
    t.equal(candidatoV1Json(record, link), v1(candidatoV1(record, link)))
    t.equal(candidatoV2Json(record, link), v2(candidatoV2(record, link)))
  }), { numRuns: 300 })
})

t.test('a vaga list item is what the schema serializer writes of its representation', async t => {
  const serialize = build(VagaSchema)
  fc.assert(fc.property(vaga, href, (record, link) => {
    t.equal(vagaJson(record, link), serialize(vagaRepresentation(record, link)))
  }), { numRuns: 300 })
})

t.test('a page, with a total or without, is what the schema serializer writes', async t => {
  const v1 = build(pageSchemaV1(VagaSchema))
  const v2 = build(pageSchemaV2(VagaSchema))
  const links = fc.array(fc.record({
    rel: fc.constantFrom('self', 'next', 'prev'),
    // As collection.ts builds them: the query's text goes through URLSearchParams.
    href: fc.tuple(textValue(), textValue()).map(([q, cursor]) => versionedHref('1.0', `/vagas${queryString({ q, cursor, limit: 20 })}`)),
    method: fc.constant('GET' as const)
  }), { maxLength: 3 })
  fc.assert(fc.property(fc.array(vaga, { maxLength: 4 }), href, links, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 100 }), (items, link, pageLinks, total, offset, limit) => {
    const json = items.map(item => vagaJson(item, link))
    const representations = items.map(item => vagaRepresentation(item, link))
    t.equal(pageJson(json, { total, offset, limit, links: pageLinks }), v1({ items: representations, total, offset, limit, links: pageLinks }))
    t.equal(pageJson(json, { limit, links: pageLinks }), v2({ items: representations, limit, links: pageLinks }))
  }), { numRuns: 200 })
})
