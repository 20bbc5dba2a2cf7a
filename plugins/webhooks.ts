import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { logCause } from '../src/logging/redacted-cause.ts'
import { roleParts } from '../src/roles.ts'
import { attemptLimitSeconds, batchLimitSeconds } from '../src/webhooks/attempt-limit.ts'
import { batchHandler } from '../src/webhooks/deliver-batch.ts'
import { deliveryHandler } from '../src/webhooks/deliver.ts'
import type { DeliveryQueue } from '../src/webhooks/delivery-queue.ts'
import { anySubscription, dispatchEvents } from '../src/webhooks/dispatch.ts'
import { EventBodies } from '../src/webhooks/event-bodies.ts'
import { registerQueueMetrics } from '../src/webhooks/queue-metrics.ts'
import { eventRepresentation } from '../src/webhooks/event-source.ts'
import { newSigningSecret } from '../src/webhooks/signing-secret.ts'
import { checkTargetUrl } from '../src/webhooks/target-lookup.ts'

export interface Webhooks {
  /** Why a target URL is refused (not public, or its name does not resolve), for the log alone; undefined when it is allowed. */
  checkTarget: (url: string) => Promise<string | undefined>
  newSecret: () => string
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Webhooks
  }
}

/**
 * Webhook delivery. Each dispatch interval, an instance asks whether any subscription is enabled;
 * from the first one on, it runs the job queue and dispatches new events into it. A service without
 * subscriptions pays for that one question per interval, and nothing else. Its role (src/roles.ts)
 * says whether it also works the queue, sending the deliveries; a worker runs the queue from the
 * start, and is ready once the queue answers.
 */
async function webhooksPlugin (fastify: FastifyInstance): Promise<void> {
  const { config, storage, repositories } = fastify
  const role = roleParts(config.SERVICE_ROLE)
  const log = fastify.log.child({ component: 'webhooks' })
  const allowPrivateTargets = config.WEBHOOK_ALLOW_PRIVATE_TARGETS
  const bodies = new EventBodies(storage.db, eventRepresentation(fastify.apiVersions))
  const delivery = {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets,
    disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
    onAttempt: registerQueueMetrics(fastify.metricsRegistry, storage.db, error => log.warn(logCause(error), 'reading the webhook queue\'s figures failed'))
  }
  const handlers = {
    batch: batchHandler(storage.db, repositories.webhookDeliveries, bodies, {
      ...delivery,
      concurrency: config.WEBHOOK_CONCURRENCY,
      retryLimit: config.WEBHOOK_RETRY_LIMIT
    }),
    delivery: deliveryHandler(repositories.webhookDeliveries, delivery)
  }
  const deadlines = { timeoutMs: config.WEBHOOK_TIMEOUT_MS, poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS, statementDeadlineMs: storage.statementDeadlineMs }
  const settings = {
    workers: config.WEBHOOK_WORKERS,
    perSubscription: config.WEBHOOK_CONCURRENCY,
    pollingSeconds: Math.max(0.5, config.WEBHOOK_DISPATCH_INTERVAL_MS / 1000),
    retryLimit: config.WEBHOOK_RETRY_LIMIT,
    retryDelaySeconds: config.WEBHOOK_RETRY_DELAY_SECONDS,
    retryDelayMaxSeconds: config.WEBHOOK_RETRY_DELAY_MAX_SECONDS,
    expireSeconds: attemptLimitSeconds(deadlines),
    // Longer than its first two retries take (their delays, and a timeout each): a receiver that
    // fails now and then is not taken for a dead one.
    failingAfterSeconds: 3 * config.WEBHOOK_RETRY_DELAY_SECONDS + 2 * Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000),
    batchExpireSeconds: batchLimitSeconds(deadlines),
    listen: config.WEBHOOK_LISTEN_NOTIFY
  }

  let queue: DeliveryQueue | undefined
  async function tick (): Promise<void> {
    if (storage.state() !== 'ready') return
    if (queue === undefined) {
      if (!role.readyWithQueue && !await anySubscription(storage.db)) return
      // The job queue's code is loaded with the first subscription: a service without any never holds it.
      const { startDeliveryQueue } = await import('../src/webhooks/delivery-queue.ts')
      queue = await startDeliveryQueue(storage, settings, role.sendsDeliveries ? handlers : undefined, error => log.warn(logCause(error), 'webhook delivery queue failed'))
      log.info({ sendsDeliveries: role.sendsDeliveries }, 'webhook delivery queue started')
      if (role.readyWithQueue) fastify.health.refresh(['queue']).catch(() => {})
    }
    if (await dispatchEvents(storage.db, queue, bodies) > 0) queue.wake()
  }

  let running: Promise<void> | undefined
  const timer = setInterval(() => {
    if (running !== undefined) return
    running = tick().catch(error => { log.warn(logCause(error), 'webhook dispatch failed') }).finally(() => { running = undefined })
  }, config.WEBHOOK_DISPATCH_INTERVAL_MS)
  timer.unref()
  fastify.addHook('onClose', async () => {
    clearInterval(timer)
    await running
    await queue?.stop()
  })

  if (role.readyWithQueue) {
    fastify.health.register('queue', async () => {
      if (queue === undefined) return 'NotReady'
      await queue.reachable()
      return 'Healthy'
    }, { tags: ['ready', 'deep'], critical: true })
  }

  fastify.decorate('webhooks', {
    checkTarget: async (url: string) => await checkTargetUrl(url, allowPrivateTargets),
    newSecret: newSigningSecret
  })
}

export default fp(webhooksPlugin, { name: 'webhooks', fastify: '5.x', dependencies: ['config', 'health', 'storage', 'repositories', 'api-versioning', 'metrics'] })
