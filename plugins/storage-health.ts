import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { HealthStatus } from '../src/health/status.js'
import type { StorageState } from './storage.js'

// What the storage's own state says before any query is tried.
const NOT_READY: Record<Exclude<StorageState, 'ready'>, HealthStatus> = {
  starting: 'NotReady',
  unavailable: 'Unhealthy',
  closed: 'NotReady'
}

/** The `database` and `migrations` checks: readiness needs both; startup (the boot phase) needs neither. */
async function storageHealth (fastify: FastifyInstance): Promise<void> {
  const { storage, health } = fastify

  health.register('database', async () => {
    const state = storage.state()
    if (state !== 'ready') return { status: NOT_READY[state], details: { kind: storage.kind } }
    await storage.ping()
    return { status: 'Healthy', details: { kind: storage.kind } }
  }, { tags: ['ready', 'deep'], critical: true })

  // The storage is `ready` only once every migration is applied; they never un-apply at run time.
  health.register('migrations', () => {
    const state = storage.state()
    return state === 'ready' ? 'Healthy' : NOT_READY[state]
  }, { tags: ['ready', 'deep'], critical: true })

  // Readiness turns Healthy the moment the migrations are applied, not at the next refresh.
  fastify.addHook('onReady', async () => {
    storage.whenReady().then(() => health.refresh()).catch(() => {})
  })
}

export default fp(storageHealth, { name: 'storage-health', fastify: '5.x', dependencies: ['health', 'storage'] })
