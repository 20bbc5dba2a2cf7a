// Why a webhook delivery attempt failed: no answer in time, no connection, a target that is not
// public, a redirect (never followed), or a status other than 2xx.
export const ATTEMPT_ERRORS = ['timeout', 'connection', 'refused-target', 'redirect', 'status'] as const
export type AttemptError = typeof ATTEMPT_ERRORS[number]
