// The query every list of candidatos takes.
import { Type } from '@sinclair/typebox'
import { CandidatoStatusSchema } from '../../representations/candidato.ts'
import { Text } from '../../representations/fields.ts'
import { ChangedAfterFilter } from './common.ts'

/** The filters of every list of candidatos; `/candidatos` also filters by `vagaId`. */
export const CandidatoFilters = {
  status: Type.Optional(CandidatoStatusSchema),
  q: Type.Optional(Text({ minLength: 1, maxLength: 100, description: 'Start of the name or of the e-mail address, any case' })),
  ...ChangedAfterFilter
}

export const DEFAULT_CANDIDATO_SORT = '-criadoEm'
