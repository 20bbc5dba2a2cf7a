// Vacancies: what a vaga is and which values it accepts. Pure: no framework, no database.
import type { IsoTimestamp } from './iso-timestamp.ts'

export const VAGA_STATUSES = ['aberta', 'fechada'] as const
export type VagaStatus = typeof VAGA_STATUSES[number]

export const TITULO_MAX_LENGTH = 200
export const DESCRICAO_MAX_LENGTH = 10_000

export interface Vaga {
  id: string
  titulo: string
  descricao: string | null
  status: VagaStatus
  criadoEm: IsoTimestamp
  atualizadoEm: IsoTimestamp
}

/** The fields a client sets; everything else the service keeps. */
export interface VagaFields {
  titulo: string
  descricao: string | null
  status: VagaStatus
}

export interface FieldIssue {
  field: string
  message: string
}

/** A new vaga is open and has no description unless the client says otherwise. */
export function vagaDefaults (input: { titulo: string, descricao?: string | null, status?: VagaStatus }): VagaFields {
  return { titulo: input.titulo, descricao: input.descricao ?? null, status: input.status ?? 'aberta' }
}

/** Rules beyond the shape of the JSON: a title of blanks is no title. */
export function vagaIssues (fields: Partial<VagaFields>): FieldIssue[] {
  const issues: FieldIssue[] = []
  if (fields.titulo !== undefined) {
    const length = [...fields.titulo].length
    if (fields.titulo.trim() === '') issues.push({ field: '/titulo', message: 'must contain a non-blank character' })
    else if (length > TITULO_MAX_LENGTH) issues.push({ field: '/titulo', message: `must NOT have more than ${TITULO_MAX_LENGTH} characters` })
  }
  if (typeof fields.descricao === 'string' && [...fields.descricao].length > DESCRICAO_MAX_LENGTH) {
    issues.push({ field: '/descricao', message: `must NOT have more than ${DESCRICAO_MAX_LENGTH} characters` })
  }
  if (fields.status !== undefined && !VAGA_STATUSES.includes(fields.status)) {
    issues.push({ field: '/status', message: `must be one of ${VAGA_STATUSES.join(', ')}` })
  }
  return issues
}

/** Whether candidates may apply to or be transferred into the vaga. */
export function acceptsCandidatos (vaga: Pick<Vaga, 'status'>): boolean {
  return vaga.status === 'aberta'
}
