// The vaga representation, the same in every API version except for the version in its links.
import { Type, type Static } from '@sinclair/typebox'
import { DESCRICAO_MAX_LENGTH, TITULO_MAX_LENGTH } from '../domain/vaga.ts'
import type { VagaRecord } from '../storage/vagas-repository.ts'
import { Id, Links, NullableString, StringEnum, TEXT_PATTERN, Text, Timestamp, type Link } from './fields.ts'

export const VagaStatusSchema = StringEnum(['aberta', 'fechada'], { description: '`aberta` accepts candidatos; `fechada` does not' })
const Titulo = Text({ minLength: 1, maxLength: TITULO_MAX_LENGTH, description: 'The title, 1 to 200 characters', examples: ['Desenvolvedora backend'] })
const Descricao = NullableString({ pattern: TEXT_PATTERN, maxLength: DESCRICAO_MAX_LENGTH, description: 'Free text, or null', examples: ['Node.js e PostgreSQL; remoto, tempo integral'] })

export const VagaSchema = Type.Object({
  id: Id,
  titulo: Type.String({ examples: ['Desenvolvedora backend'] }),
  descricao: NullableString({ examples: ['Node.js e PostgreSQL; remoto, tempo integral'] }),
  status: VagaStatusSchema,
  criadoEm: Timestamp,
  atualizadoEm: Timestamp,
  links: Links
}, { description: 'A vacancy' })
export type VagaBody = Static<typeof VagaSchema>

export const VagaCreateSchema = Type.Object({
  titulo: Titulo,
  descricao: Type.Optional(Descricao),
  status: Type.Optional(VagaStatusSchema)
}, {
  additionalProperties: false,
  description: 'A new vaga; it is `aberta` unless `status` says otherwise',
  examples: [{ titulo: 'Desenvolvedora backend', descricao: 'Node.js e PostgreSQL; remoto, tempo integral' }]
})

export const VagaReplaceSchema = Type.Object({
  titulo: Titulo,
  descricao: Type.Optional(Descricao),
  status: VagaStatusSchema
}, { additionalProperties: false, description: 'Every field a client sets; a missing `descricao` becomes null' })

export const VagaPatchSchema = Type.Object({
  titulo: Type.Optional(Titulo),
  descricao: Type.Optional(Descricao),
  status: Type.Optional(VagaStatusSchema)
}, { additionalProperties: false, minProperties: 1, description: 'The fields to change', examples: [{ status: 'fechada' }] })

export function vagaPath (id: string): string {
  return `/vagas/${id}`
}

export function vagaLinks (vaga: Pick<VagaRecord, 'id'>, href: (path: string) => string): Link[] {
  const self = href(vagaPath(vaga.id))
  return [
    { rel: 'self', href: self, method: 'GET' },
    { rel: 'edit', href: self, method: 'PUT' },
    { rel: 'edit', href: self, method: 'PATCH' },
    { rel: 'candidatos', href: href(`${vagaPath(vaga.id)}/candidatos`), method: 'GET' }
  ]
}

export function vagaRepresentation (vaga: VagaRecord, href: (path: string) => string): VagaBody {
  return {
    id: vaga.id,
    titulo: vaga.titulo,
    descricao: vaga.descricao,
    status: vaga.status,
    criadoEm: vaga.criadoEm,
    atualizadoEm: vaga.atualizadoEm,
    links: vagaLinks(vaga, href)
  }
}

/** Strong: it changes with every change of the vaga and differs between versions (their links differ). */
export function vagaEtag (vaga: Pick<VagaRecord, 'versao'>, version: string): string {
  return `"${version}-${vaga.versao}"`
}
