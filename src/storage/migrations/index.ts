import type { Migration } from 'kysely'
import { recruitment } from './0001-recruitment.ts'
import { emailKeyColumn } from './0002-email-key.ts'
import { events } from './0003-events.ts'
import { webhooks } from './0004-webhooks.ts'
import { webhookDispatchTime } from './0005-webhook-dispatch-time.ts'
import { webhookTypesIndex } from './0006-webhook-types-index.ts'
import { webhookOwner } from './0007-webhook-owner.ts'

/**
 * Every migration, in order of name. Listed in code rather than read from a folder so the same
 * list runs from the TypeScript sources and the compiled build.
 */
export const migrations: Record<string, Migration> = {
  '0001-recruitment': recruitment,
  '0002-email-key': emailKeyColumn,
  '0003-events': events,
  '0004-webhooks': webhooks,
  '0005-webhook-dispatch-time': webhookDispatchTime,
  '0006-webhook-types-index': webhookTypesIndex,
  '0007-webhook-owner': webhookOwner
}
