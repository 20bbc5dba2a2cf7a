// The one place the webhooks read the event feed: a page of events after a position, in id order
// (which is commit order), and each event as the feed shows it, its subject in the payloads' version.
import type { Transaction } from 'kysely'
import type { ApiVersionTable } from '../versioning/versions.js'
import { versionedHref } from '../versioning/href.js'
import { servedVersions } from '../versioning/profiles.js'
import { candidatoVersions } from '../http/resources/candidato-versions.js'
import { vagaVersions } from '../http/resources/vaga-versions.js'
import type { CandidatoRecord } from '../storage/candidatos-repository.js'
import { createEventosRepository, PurgedPositionError, type EventPage, type EventRecord } from '../storage/eventos-repository.js'
import type { Schema } from '../storage/schema.js'
import type { VagaRecord } from '../storage/vagas-repository.js'

/** Payloads show subjects as version 2.0 does. */
export const PAYLOAD_VERSION = '2.0'

/** Events after `after`; from the oldest kept when the purge removed some after it (they are gone). */
export async function eventsAfter (trx: Transaction<Schema>, after: number, limit: number): Promise<EventPage> {
  // The retention only matters to the purge, which this repository never runs.
  const eventos = createEventosRepository(trx, Number.MAX_SAFE_INTEGER)
  try {
    return await eventos.page({ filter: {}, after, limit })
  } catch (error) {
    if (error instanceof PurgedPositionError) return await eventos.page({ filter: {}, limit })
    throw error
  }
}

export type EventRepresentation = (event: EventRecord) => unknown

export function eventRepresentation (table: ApiVersionTable): EventRepresentation {
  const inPayloadVersion = <P extends object>(served: Array<{ version: string, profile: P }>): P => served.find(entry => entry.version === PAYLOAD_VERSION)!.profile
  const vaga = inPayloadVersion(servedVersions(table, vagaVersions)).toBody
  const candidato = inPayloadVersion(servedVersions(table, candidatoVersions)).toBody
  const href = (path: string): string => versionedHref(PAYLOAD_VERSION, path)
  return event => {
    const { kind, id } = event.subject
    // The stored data is the record the repository wrote for this kind of subject (event-log.ts).
    const dados = event.data === null ? null : kind === 'vaga' ? vaga(event.data as VagaRecord, href) : candidato(event.data as CandidatoRecord, href)
    return { id: event.id, tipo: event.type, em: event.at, ator: event.actor, sujeito: { tipo: kind, id }, dados }
  }
}
