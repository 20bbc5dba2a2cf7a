// The set-up of the webhook process tests: service processes that deliver to receivers on loopback,
// sharing a fresh PostgreSQL database, and a client of their API.
import type { Test } from 'tap'
import { startServerProcess, untilReady, type ServerProcess } from './server-process.ts'
import { serviceApi, type Send } from './service-api.ts'
import { freshPostgresDatabase } from './services.ts'

export interface WebhookInstances {
  /** The instances asked for, each ready. */
  instances: ServerProcess[]
  /** Starts one more on the same database and settings, `overrides` on top; resolves once it is ready. */
  startAnother: (overrides?: Record<string, string>) => Promise<ServerProcess>
  send: Send
  databaseUrl: string
}

/** `count` instances with `settings` on top of the shared ones; undefined when the test has no PostgreSQL. */
export async function webhookInstances (t: Test, count: number, settings: Record<string, string>): Promise<WebhookInstances | undefined> {
  const databaseUrl = await freshPostgresDatabase(t)
  if (databaseUrl === undefined) return undefined
  const env = { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...settings }
  const startAnother = async (overrides: Record<string, string> = {}): Promise<ServerProcess> => {
    const instance = await startServerProcess(t, { ...env, ...overrides })
    await untilReady(instance.url)
    return instance
  }
  const [instances, send] = await Promise.all([
    Promise.all(Array.from({ length: count }, async () => await startAnother())),
    serviceApi('vagas:write candidatos:write webhooks:write eventos:read')
  ])
  return { instances, startAnother, send, databaseUrl }
}
