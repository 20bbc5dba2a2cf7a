// Which events a subscription may receive: those whose data its creator may read over HTTP. The one
// place that decides it: the routes refuse other types, and the dispatch sends none.
import { EVENT_TYPES, type SubjectKind } from '../domain/events.ts'

/** The feed shows every event; without it, a subject's events need the scope that reads the subject. */
const FEED_SCOPE = 'eventos:read'
const SUBJECT_SCOPES: Record<SubjectKind, string> = { vaga: 'vagas:read', candidato: 'candidatos:read' }

/** The scopes that decide what a subscription may receive, in the order they are recorded. */
export const READ_SCOPES: readonly string[] = [FEED_SCOPE, ...Object.values(SUBJECT_SCOPES)]

/** The creator's scopes that decide what the subscription may receive: recorded with it when it is made. */
export function readScopesOf (scopes: ReadonlySet<string>): string[] {
  return READ_SCOPES.filter(scope => scopes.has(scope))
}

/** Whether a subscription whose creator held `readScopes` may receive events of `type`. */
export function mayReceive (type: string, readScopes: readonly string[]): boolean {
  if (readScopes.includes(FEED_SCOPE)) return true
  const scope = SUBJECT_SCOPES[type.slice(0, type.indexOf('.')) as SubjectKind] as string | undefined
  return scope !== undefined && readScopes.includes(scope)
}

/** The types among `tipos` the subscription may not receive; with no `tipos` (every type), whether it may receive none at all. */
export function forbiddenTypes (tipos: readonly string[], readScopes: readonly string[]): string[] {
  if (tipos.length === 0) return EVENT_TYPES.some(type => mayReceive(type, readScopes)) ? [] : [...EVENT_TYPES]
  return tipos.filter(type => !mayReceive(type, readScopes))
}
