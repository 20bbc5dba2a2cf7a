import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { newSigningSecret } from '../src/webhooks/signing-secret.js'
import { checkTargetUrl } from '../src/webhooks/target-lookup.js'

export interface Webhooks {
  /** Why a target URL is refused (not http(s), not public, or not resolving), or undefined when it is allowed. */
  checkTarget: (url: string) => Promise<string | undefined>
  newSecret: () => string
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Webhooks
  }
}

/** Webhook subscriptions' rules: which targets are allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS) and their secrets. */
async function webhooksPlugin (fastify: FastifyInstance): Promise<void> {
  const allowPrivateTargets = fastify.config.WEBHOOK_ALLOW_PRIVATE_TARGETS
  fastify.decorate('webhooks', {
    checkTarget: async (url: string) => await checkTargetUrl(url, allowPrivateTargets),
    newSecret: newSigningSecret
  })
}

export default fp(webhooksPlugin, { name: 'webhooks', fastify: '5.x', dependencies: ['config'] })
