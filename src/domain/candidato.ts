// Candidates: what a candidato is and which values it accepts. Pure: no framework, no database.
import type { FieldIssue } from './vaga.ts'
import type { IsoTimestamp } from './iso-timestamp.ts'

export const CANDIDATO_STATUSES = ['cadastrado', 'inscrito', 'aprovado', 'reprovado'] as const
export type CandidatoStatus = typeof CANDIDATO_STATUSES[number]

export const NOME_MAX_LENGTH = 200
/** RFC 5321 limits a forward path to 256 octets, so an address to 254 characters. */
export const EMAIL_MAX_LENGTH = 254

/**
 * A practical address check: one "@", no blanks or NUL, a dot in the domain, no empty labels. Full RFC 5322
 * syntax accepts addresses no mail system delivers; this accepts what people type.
 */
export const EMAIL_PATTERN = '^[^\\s\\u0000@"(),:;<>\\[\\]\\\\]+@[^\\s\\u0000@"(),:;<>\\[\\]\\\\.]+(\\.[^\\s\\u0000@"(),:;<>\\[\\]\\\\.]+)+$'
const EMAIL = new RegExp(EMAIL_PATTERN, 'u')
// Characters that render as nothing (zero-width space and joiners, soft hyphen, direction marks): two
// addresses that look the same must be the same address.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/u

export interface Candidato {
  id: string
  nome: string
  email: string
  status: CandidatoStatus
  /** The vaga the candidate is in, or null before applying. */
  vagaId: string | null
  /** The vaga of the latest transfer, while it can still be cancelled. */
  transferidoDe: string | null
  criadoEm: IsoTimestamp
  atualizadoEm: IsoTimestamp
}

/** The fields a client sets directly; status and vaga change only through actions. */
export interface CandidatoFields {
  nome: string
  email: string
}

/**
 * What makes two addresses the same: compatibility forms (fullwidth letters, ligatures), composed and
 * decomposed accents and case, in any script, do not make another address. NFKC again after the lower
 * case, because lowering can leave a sequence that is not normalized. The unique index is on this key.
 */
export function emailKey (email: string): string {
  return email.normalize('NFKC').toLowerCase().normalize('NFKC')
}

export function isEmail (value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL.test(value) && !INVISIBLE.test(value)
}

/** Rules beyond the shape of the JSON: a name of blanks is no name, and the address must look deliverable. */
export function candidatoIssues (fields: Partial<CandidatoFields>): FieldIssue[] {
  const issues: FieldIssue[] = []
  if (fields.nome !== undefined) {
    if (fields.nome.trim() === '') issues.push({ field: '/nome', message: 'must contain a non-blank character' })
    else if ([...fields.nome].length > NOME_MAX_LENGTH) issues.push({ field: '/nome', message: `must NOT have more than ${NOME_MAX_LENGTH} characters` })
  }
  if (fields.email !== undefined && !isEmail(fields.email)) {
    issues.push({ field: '/email', message: 'must be an e-mail address' })
  }
  return issues
}
