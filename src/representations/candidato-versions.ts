// What a candidato is in each API version: the one place that says how the versions differ.
import type { TObject } from '@sinclair/typebox'
import type { CandidatoDetail, CandidatoRecord } from '../storage/candidatos-repository.ts'
import { versionedResource } from '../versioning/profiles.ts'
import { CandidatoV1Schema, CandidatoV2Schema, candidatoV1, candidatoV2 } from './candidato.ts'
import type { Paging } from './paging.ts'

export interface CandidatoProfile {
  /** How `/candidatos` and `/vagas/{id}/candidatos` are paged. */
  paging: Paging
  /** The representation's schema, in every answer that carries a candidato (one alone adds its `historico`: candidatoDetailSchema). */
  schema: TObject
  /** A list item is a CandidatoRecord (no history); a single candidato, a CandidatoDetail. */
  toBody: (candidato: CandidatoRecord | CandidatoDetail, href: (path: string) => string) => unknown
  /** The representation shows fields of the candidato's vaga: its ETag and Last-Modified follow the vaga too. */
  showsVaga: boolean
}

/** 1.0 names the vaga by id and pages by offset; 2.0 embeds a summary of the vaga and pages by cursor. */
export const candidatoVersions = versionedResource<CandidatoProfile>('candidatos',
  { paging: 'offset', schema: CandidatoV1Schema, toBody: candidatoV1, showsVaga: false },
  { '2.0': { paging: 'cursor', schema: CandidatoV2Schema, toBody: candidatoV2, showsVaga: true } })
