// Which API versions serve the event feed: the one place that says so.
import { versionedResource } from '../versioning/profiles.ts'

export interface EventoProfile {
  /** Whether the version serves `/eventos`. */
  served: boolean
}

/** The feed came with 2.0 (cursor paging, the 2.0 representations); later versions keep it. */
export const eventoVersions = versionedResource<EventoProfile>('eventos', { served: false }, { '2.0': { served: true } })
