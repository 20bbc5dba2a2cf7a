// The candidato representations: v1 names the vaga by id, v2 embeds a summary of it.
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { allowedCalls, CANDIDATO_ACTIONS } from '../domain/candidato-actions.ts'
import { CANDIDATO_STATUSES, EMAIL_MAX_LENGTH, EMAIL_PATTERN, NOME_MAX_LENGTH } from '../domain/candidato.ts'
import type { CandidatoDetail, CandidatoRecord } from '../storage/candidatos-repository.ts'
import type { IsoTimestamp } from '../domain/iso-timestamp.ts'
import { Id, Links, NullableString, StringEnum, Text, Timestamp, UUID_PATTERN, type Link } from './fields.ts'
import { VagaStatusSchema, vagaPath } from './vaga.ts'

export const CandidatoStatusSchema = StringEnum(CANDIDATO_STATUSES, { description: 'cadastrado -> inscrito (candidatar) -> aprovado | reprovado' })

const ActionSchema = StringEnum(CANDIDATO_ACTIONS)
const NullableId = (description?: string) => NullableString({ pattern: UUID_PATTERN, ...(description !== undefined && { description }) })
const Nome = Text({ minLength: 1, maxLength: NOME_MAX_LENGTH, description: 'The name, 1 to 200 characters', examples: ['Ana Souza'] })
const Email = Type.String({ maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN, description: 'An e-mail address, unique in any case and Unicode form; characters that render as nothing are refused', examples: ['ana@example.com'] })

const HistoricoSchema = Type.Array(Type.Object({
  acao: ActionSchema,
  metodo: StringEnum(['POST', 'DELETE'], { description: 'POST performed the action, DELETE cancelled it' }),
  statusAnterior: CandidatoStatusSchema,
  status: CandidatoStatusSchema,
  vagaAnteriorId: NullableId(),
  vagaId: NullableId(),
  ator: Type.String({ description: 'Who acted: the token\'s `sub`, else `client:<client_id>`; `%`, `:` and `@` percent-encoded, then `@<iss>` when the issuer is not the configured one' }),
  em: Timestamp
}), { description: 'Every action on the candidato, oldest first: in every answer that carries one candidato, never in a list or an event' })

const common = {
  id: Id,
  nome: Type.String({ examples: ['Ana Souza'] }),
  email: Type.String({ examples: ['ana.souza@example.com'] }),
  status: CandidatoStatusSchema,
  transferidoDe: NullableId('The vaga before the latest transfer, while that transfer can be cancelled'),
  criadoEm: Timestamp,
  atualizadoEm: Timestamp,
  historico: Type.Optional(HistoricoSchema),
  links: Links
}

export const CandidatoV1Schema = Type.Object({
  ...common,
  vagaId: NullableId('The vaga the candidato is in')
}, { description: 'A candidate (API 1.0)' })

export const VagaSummarySchema = Type.Object({ id: Id, titulo: Type.String(), status: VagaStatusSchema }, { description: 'The vaga the candidato is in' })
export const CandidatoV2Schema = Type.Object({
  ...common,
  vaga: Type.Union([VagaSummarySchema, Type.Null()])
}, { description: 'A candidate (API 2.0): the vaga is embedded as a summary' })

/** The schema of an answer that carries one candidato (read, created, changed or acted on): the version's representation, `historico` always in it. */
export function candidatoDetailSchema (schema: TObject): TSchema {
  return Type.Object({ ...schema.properties, historico: HistoricoSchema }, { description: `${schema.description ?? 'A candidate'}, with its history` })
}

export type CandidatoV1Body = Static<typeof CandidatoV1Schema>
export type CandidatoV2Body = Static<typeof CandidatoV2Schema>

export const CandidatoCreateSchema = Type.Object({ nome: Nome, email: Email }, { additionalProperties: false, examples: [{ nome: 'Ana Souza', email: 'ana.souza@example.com' }] })
export const CandidatoReplaceSchema = CandidatoCreateSchema
export const CandidatoPatchSchema = Type.Object({ nome: Type.Optional(Nome), email: Type.Optional(Email) }, { additionalProperties: false, minProperties: 1 })
export const TargetVagaSchema = Type.Object({ vagaId: Id }, {
  additionalProperties: false,
  description: 'The destination vaga, which must be `aberta`',
  examples: [{ vagaId: '0b7c1a5e-8f2d-4c3b-9a6e-1f2d3c4b5a69' }]
})

export function candidatoPath (id: string): string {
  return `/candidatos/${id}`
}

/** self, edit, the vaga when there is one, and one link per action possible now. */
export function candidatoLinks (candidato: CandidatoRecord, href: (path: string) => string): Link[] {
  const self = href(candidatoPath(candidato.id))
  const links: Link[] = [
    { rel: 'self', href: self, method: 'GET' },
    { rel: 'edit', href: self, method: 'PUT' },
    { rel: 'edit', href: self, method: 'PATCH' }
  ]
  if (candidato.vagaId !== null) links.push({ rel: 'vaga', href: href(vagaPath(candidato.vagaId)), method: 'GET' })
  for (const call of allowedCalls(candidato)) {
    links.push({ rel: call.action, href: `${self}/${call.action}`, method: call.method })
  }
  return links
}

function historico (candidato: CandidatoRecord | CandidatoDetail) {
  if (!('historico' in candidato)) return {}
  return { historico: candidato.historico }
}

export function candidatoV1 (candidato: CandidatoRecord | CandidatoDetail, href: (path: string) => string): CandidatoV1Body {
  return {
    id: candidato.id,
    nome: candidato.nome,
    email: candidato.email,
    status: candidato.status,
    transferidoDe: candidato.transferidoDe,
    criadoEm: candidato.criadoEm,
    atualizadoEm: candidato.atualizadoEm,
    ...historico(candidato),
    links: candidatoLinks(candidato, href),
    vagaId: candidato.vagaId
  }
}

export function candidatoV2 (candidato: CandidatoRecord | CandidatoDetail, href: (path: string) => string): CandidatoV2Body {
  const vaga = candidato.vaga
  return {
    id: candidato.id,
    nome: candidato.nome,
    email: candidato.email,
    status: candidato.status,
    transferidoDe: candidato.transferidoDe,
    criadoEm: candidato.criadoEm,
    atualizadoEm: candidato.atualizadoEm,
    ...historico(candidato),
    links: candidatoLinks(candidato, href),
    vaga: vaga === null ? null : { id: vaga.id, titulo: vaga.titulo, status: vaga.status }
  }
}

/** Strong: a representation that shows the vaga's fields also changes its ETag when the vaga changes. */
export function candidatoEtag (candidato: CandidatoRecord, version: string, showsVaga: boolean): string {
  return showsVaga ? `"${version}-${candidato.versao}-${candidato.vaga?.versao ?? 0}"` : `"${version}-${candidato.versao}"`
}

/** A representation that shows the vaga's title and status changed at the later of the two changes. */
export function candidatoLastModified (candidato: CandidatoRecord, showsVaga: boolean): IsoTimestamp {
  const vagaChange = candidato.vaga?.atualizadoEm
  return showsVaga && vagaChange !== undefined && vagaChange > candidato.atualizadoEm ? vagaChange : candidato.atualizadoEm
}
