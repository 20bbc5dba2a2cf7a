// Lists write their pages with JSON.stringify (collection.ts): it must write, byte for byte, what the
// response schema's serializer writes for the same representation, whatever text the records hold.
// So each representation holds its schema's fields, in the schema's order.
import t from 'tap'
import fc from 'fast-check'
import build from 'fast-json-stringify'
import { CANDIDATO_STATUSES } from '../../../src/domain/candidato.js'
import { CandidatoV1Schema, CandidatoV2Schema, candidatoV1, candidatoV2 } from '../../../src/representations/candidato.js'
import { pageSchemaV1, pageSchemaV2 } from '../../../src/http/resources/collection.js'
import { VagaSchema, vagaRepresentation } from '../../../src/representations/vaga.js'
import type { CandidatoRecord } from '../../../src/storage/candidatos-repository.js'
import type { VagaRecord } from '../../../src/storage/vagas-repository.js'
import { WebhookSchema, webhookRepresentation } from '../../../src/representations/webhook.js'
import type { WebhookRecord } from '../../../src/storage/webhooks-repository.js'
import { EVENT_TYPES } from '../../../src/domain/events.js'
import { versionedHref } from '../../../src/versioning/href.js'
import { queryString } from '../../../src/http/resources/collection-query.js'
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

t.test('JSON.stringify writes a candidato list item as the schema serializer does, in both versions', async t => {
  const v1 = build(CandidatoV1Schema)
  const v2 = build(CandidatoV2Schema)
  fc.assert(fc.property(candidato, href, (record, link) => {
    t.equal(JSON.stringify(candidatoV1(record, link)), v1(candidatoV1(record, link)))
    t.equal(JSON.stringify(candidatoV2(record, link)), v2(candidatoV2(record, link)))
  }), { numRuns: 300 })
})

t.test('JSON.stringify writes a vaga list item as the schema serializer does', async t => {
  const serialize = build(VagaSchema)
  fc.assert(fc.property(vaga, href, (record, link) => {
    t.equal(JSON.stringify(vagaRepresentation(record, link)), serialize(vagaRepresentation(record, link)))
  }), { numRuns: 300 })
})

t.test('JSON.stringify writes a page, with a total or without, as the schema serializer does', async t => {
  const v1 = build(pageSchemaV1(VagaSchema))
  const v2 = build(pageSchemaV2(VagaSchema))
  const links = fc.array(fc.record({
    rel: fc.constantFrom('self', 'next', 'prev'),
    // As collection.ts builds them: the query's text goes through URLSearchParams.
    href: fc.tuple(textValue(), textValue()).map(([q, cursor]) => versionedHref('1.0', `/vagas${queryString({ q, cursor, limit: 20 })}`)),
    method: fc.constant('GET' as const)
  }), { maxLength: 3 })
  fc.assert(fc.property(fc.array(vaga, { maxLength: 4 }), href, links, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 100 }), (items, link, pageLinks, total, offset, limit) => {
    const representations = items.map(item => vagaRepresentation(item, link))
    const withTotal = { items: representations, total, offset, limit, links: pageLinks }
    const withoutTotal = { items: representations, limit, links: pageLinks }
    t.equal(JSON.stringify(withTotal), v1(withTotal))
    t.equal(JSON.stringify(withoutTotal), v2(withoutTotal))
  }), { numRuns: 200 })
})

const webhook: fc.Arbitrary<WebhookRecord> = fc.record({
  id,
  url: textValue(),
  tipos: fc.uniqueArray(fc.constantFrom(...EVENT_TYPES), { maxLength: 3 }),
  ativo: fc.boolean(),
  criadoPor: fc.option(textValue()),
  // Not part of the representation: a field the record holds and the schema does not must not leak into a page.
  escopos: fc.array(fc.constantFrom('vagas:read', 'candidatos:read', 'eventos:read')),
  desativadoEm: fc.option(instant),
  criadoEm: instant,
  atualizadoEm: instant
})

t.test('JSON.stringify writes a webhook subscription list item as the schema serializer does', async t => {
  const serialize = build(WebhookSchema)
  const link = (path: string) => versionedHref('2.0', path)
  fc.assert(fc.property(webhook, record => {
    t.equal(JSON.stringify(webhookRepresentation(record, link)), serialize(webhookRepresentation(record, link)))
  }), { numRuns: 300 })
})
