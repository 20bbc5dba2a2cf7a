// The one place the webhooks read the event feed: a page of events after a position, in id order
// (given after commit), events by id, and each event as the feed shows it in the payloads' version.
import type { Kysely, Transaction } from 'kysely'
import type { ApiVersionTable } from '../versioning/versions.ts'
import { versionedHref } from '../versioning/href.ts'
import { servedVersions } from '../versioning/profiles.ts'
import { candidatoVersions } from '../representations/candidato-versions.ts'
import { eventoRepresentation } from '../representations/evento.ts'
import { vagaVersions } from '../representations/vaga-versions.ts'
import { createEventosRepository, PurgedPositionError, type EventPage, type EventRecord } from '../storage/eventos-repository.ts'
import type { Schema } from '../storage/schema.ts'

/** Payloads show events as version 2.0 of the feed does. */
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

/** The events with these ids still kept (the purge may have removed some), in id order. */
export async function eventsByIds (db: Kysely<Schema>, ids: readonly number[]): Promise<EventRecord[]> {
  return await createEventosRepository(db, Number.MAX_SAFE_INTEGER).byIds(ids)
}

export type EventRepresentation = (event: EventRecord) => unknown

/** The event as GET /eventos shows it in the payloads' version. */
export function eventRepresentation (table: ApiVersionTable): EventRepresentation {
  const inPayloadVersion = <P extends object>(served: Array<{ version: string, profile: P }>): P => served.find(entry => entry.version === PAYLOAD_VERSION)!.profile
  const subjects = { vaga: inPayloadVersion(servedVersions(table, vagaVersions)).toBody, candidato: inPayloadVersion(servedVersions(table, candidatoVersions)).toBody }
  const href = (path: string): string => versionedHref(PAYLOAD_VERSION, path)
  return event => eventoRepresentation(event, href, subjects)
}
