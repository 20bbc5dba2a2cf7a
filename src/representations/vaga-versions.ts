// What a vaga is in each API version: the one place that says how the versions differ.
import type { TSchema } from '@sinclair/typebox'
import type { VagaRecord } from '../storage/vagas-repository.ts'
import { versionedResource } from '../versioning/profiles.ts'
import type { ItemRepresentation, Paging } from './paging.ts'
import { VagaSchema, vagaRepresentation } from './vaga.ts'

export interface VagaProfile {
  /** How `/vagas` is paged. */
  paging: Paging
  /** The representation's schema, in every answer that carries a vaga. */
  schema: TSchema
  toBody: ItemRepresentation<VagaRecord>
}

/** The same representation in every version (its links name the version); 2.0 pages by cursor. */
export const vagaVersions = versionedResource<VagaProfile>('vagas',
  { paging: 'offset', schema: VagaSchema, toBody: vagaRepresentation },
  { '2.0': { paging: 'cursor' } })
