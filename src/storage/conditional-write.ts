// What the repositories' conditional writes (If-Match) take and answer.

/** Decides, against the current state read under lock, whether a conditional write may go ahead. */
export type Precondition<T> = (current: T) => boolean

export type WriteOutcome<T> =
  | { outcome: 'ok', value: T }
  | { outcome: 'not-found' }
  | { outcome: 'precondition-failed' }
