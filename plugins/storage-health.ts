import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { HealthStatus } from '../src/health/status.ts'
import type { CheckOutcome } from '../src/health/registry.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { isStorageFull } from '../src/storage/errors.ts'
import type { StorageState } from './storage.ts'

// What the storage's own state says before any query is tried.
const NOT_READY: Record<Exclude<StorageState, 'ready'>, HealthStatus> = {
  starting: 'NotReady',
  unavailable: 'Unhealthy',
  closed: 'NotReady'
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH'])
// A disk nearly full refuses some changes and stores others (those that fit in pages it has): the
// storage counts as having room again only once a change is stored this long after the last refusal.
const ROOM_AGAIN_AFTER_MS = 10_000

/**
 * The `database` and `migrations` checks: readiness needs both; startup (the boot phase) needs neither.
 * A database whose disk is full still serves reads: from the first change it refuses for want of room
 * until one is stored again, `database` is Degraded (readiness stays 200) and says so, and the log has
 * one line at each end of it.
 */
async function storageHealth (fastify: FastifyInstance): Promise<void> {
  const { storage, health } = fastify
  const log = fastify.log.child({ component: 'storage' })
  let fullSince: string | undefined
  let lastRefusal = 0

  // Only routes that touch the database can be refused for want of room, and only their changes show
  // there is room again: probes and every other route run none of this.
  function noteRefusal (_request: FastifyRequest, _reply: FastifyReply, error: FastifyError, done: () => void): void {
    if (isStorageFull(error)) {
      lastRefusal = Date.now()
      if (fullSince === undefined) {
        fullSince = new Date(lastRefusal).toISOString()
        log.warn({ kind: storage.kind }, 'database storage full: changes answer 503 StorageFull until there is room again')
      }
    }
    done()
  }
  function noteStoredChange (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    if (fullSince !== undefined && CHANGES.has(request.method) && reply.statusCode < 300 && Date.now() - lastRefusal >= ROOM_AGAIN_AFTER_MS) {
      fullSince = undefined
      log.info({ kind: storage.kind }, 'database storage has room again: changes are stored')
    }
    done()
  }
  fastify.routeSteps.add('storage-health', function watchStorage (this: FastifyInstance, route: RouteOptions) {
    if (!routePolicy(route, this).database) return
    addRouteHook(route, 'onError', noteRefusal)
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.some(method => CHANGES.has(method))) addRouteHook(route, 'onResponse', noteStoredChange)
  })

  health.register('database', async (): Promise<CheckOutcome> => {
    const state = storage.state()
    if (state !== 'ready') return { status: NOT_READY[state], details: { kind: storage.kind } }
    await storage.ping()
    if (fullSince !== undefined) return { status: 'Degraded', details: { kind: storage.kind, storage: 'full', fullSince } }
    return { status: 'Healthy', details: { kind: storage.kind } }
  }, { tags: ['ready', 'deep'], critical: true })

  // The storage is `ready` only once every migration is applied; they never un-apply at run time.
  health.register('migrations', () => {
    const state = storage.state()
    return state === 'ready' ? 'Healthy' : NOT_READY[state]
  }, { tags: ['ready', 'deep'], critical: true })

  // Readiness turns Healthy the moment the migrations are applied, not at the next refresh.
  fastify.addHook('onReady', async () => {
    storage.whenReady().then(() => health.refresh(['database', 'migrations'])).catch(() => {})
  })
}

export default fp(storageHealth, { name: 'storage-health', fastify: '5.x', dependencies: ['health', 'storage', 'route-hooks'] })
