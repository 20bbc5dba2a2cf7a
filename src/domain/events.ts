// The events of the feed: one per state change, named by what changed. Pure: no framework, no database.
import { ACTION_CALLS, type ActionCall } from './candidato-actions.ts'

export const SUBJECT_KINDS = ['vaga', 'candidato'] as const
export type SubjectKind = typeof SUBJECT_KINDS[number]

/** An action performed is named by its word (`candidato.aprovar`); its cancellation adds `.cancelado`. */
export function actionEventType (call: ActionCall): string {
  return call.method === 'POST' ? `candidato.${call.action}` : `candidato.${call.action}.cancelado`
}

/** Every event type, in the order the API guide lists them. */
export const EVENT_TYPES: readonly string[] = [
  'vaga.criada',
  'vaga.alterada',
  'vaga.removida',
  'candidato.criado',
  'candidato.alterado',
  'candidato.removido',
  ...ACTION_CALLS.map(actionEventType)
]
