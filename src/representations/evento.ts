// The event representation: what changed, when, by whom, and the subject as it became.
import { Type, type TSchema } from '@sinclair/typebox'
import { EVENT_TYPES, SUBJECT_KINDS } from '../domain/events.ts'
import type { EventRecord } from '../storage/eventos-repository.ts'
import type { CandidatoRecord } from '../storage/candidatos-repository.ts'
import type { VagaRecord } from '../storage/vagas-repository.ts'
import { Id, Links, StringEnum, Timestamp, type Link } from './fields.ts'
import { candidatoPath } from './candidato.ts'
import { vagaPath } from './vaga.ts'

export const EventTypeSchema = StringEnum(EVENT_TYPES, { description: 'What changed; docs/api.md lists each type' })

/** An event whose `dados` is the subject in the serving version's representation. */
export function eventoSchema (vagaSchema: TSchema, candidatoSchema: TSchema) {
  return Type.Object({
    id: Type.Integer({ minimum: 1, description: 'The feed\'s order, given once the change committed' }),
    tipo: EventTypeSchema,
    em: { ...Timestamp, description: 'When the change\'s transaction began (ISO 8601, UTC, milliseconds); not ordered, `id` is' },
    ator: Type.String({ description: 'Who made the change: the token\'s actor, as in a candidato\'s `historico`' }),
    sujeito: Type.Object({ tipo: StringEnum(SUBJECT_KINDS), id: Id }, { description: 'The vaga or candidato that changed' }),
    dados: Type.Union([vagaSchema, candidatoSchema, Type.Null()], { description: 'The subject after the change (a candidato without `historico`); null for a removal' }),
    links: Links
  }, { description: 'One state change' })
}

/** How the serving version represents each kind of subject. */
export interface SubjectRepresentations {
  vaga: (vaga: VagaRecord, href: (path: string) => string) => unknown
  candidato: (candidato: CandidatoRecord, href: (path: string) => string) => unknown
}

export function eventoRepresentation (event: EventRecord, href: (path: string) => string, subjects: SubjectRepresentations) {
  const { kind, id } = event.subject
  const links: Link[] = [{ rel: kind, href: href(kind === 'vaga' ? vagaPath(id) : candidatoPath(id)), method: 'GET' }]
  // The stored data is the record the repository wrote for this kind of subject (event-log.ts).
  const dados = event.data === null
    ? null
    : kind === 'vaga' ? subjects.vaga(event.data as VagaRecord, href) : subjects.candidato(event.data as CandidatoRecord, href)
  return { id: event.id, tipo: event.type, em: event.at, ator: event.actor, sujeito: { tipo: kind, id }, dados, links }
}
