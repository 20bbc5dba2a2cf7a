import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { CheckResult } from './registry.ts'
import { healthRouteSchema } from './route-schema.ts'
import { DeepResult, DependenciesResult, DependencyResult } from './schemas.ts'
import { httpStatusOf, worstOf } from './status.ts'
import { problem } from '../http/problems/error-catalogue.ts'

// Detail endpoints are not polled by balancers: they keep the request histogram.
const PROTECTED = { logLevel: 'warn', config: { shed: false, rateLimit: false, scopes: ['health:read'] } } as const

function ageOf (result: CheckResult): number {
  return Math.max(0, Date.now() - result.checkedAt)
}

function dependency (result: CheckResult) {
  return { name: result.name, status: result.status, latencyMs: result.latencyMs, ageMs: ageOf(result) }
}

/**
 * The detailed health endpoints: each runs checks, bounded by their timeouts and cacheTtl. Served under
 * `/health` on the service's port (behind `health:read`) and on the management listener.
 */
export const healthDetailRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { health } = fastify

  fastify.get('/deep', {
    ...PROTECTED,
    schema: healthRouteSchema({
      summary: 'Full diagnosis of the dependencies',
      description: 'Runs every deep check (a result younger than its cacheTtl is reused) and shows latency, age and details. Never use it as liveness.'
    }, DeepResult)
  }, async (_request, reply) => {
    const results = await health.runAll(health.names('deep'))
    const checks = Object.fromEntries(results.map(result => [result.name, {
      status: result.status,
      latencyMs: result.latencyMs,
      ageMs: ageOf(result),
      critical: result.critical,
      ...(result.details !== undefined && { details: result.details })
    }]))
    const status = worstOf(results.map(result => result.effectiveStatus))
    return reply.code(httpStatusOf(status)).send({ status, checks })
  })

  fastify.get('/dependencies', {
    ...PROTECTED,
    schema: healthRouteSchema({
      summary: 'State of every dependency',
      description: 'Every registered check with its status and latency.'
    }, DependenciesResult)
  }, async (_request, reply) => {
    const results = await health.runAll()
    const status = worstOf(results.map(result => result.effectiveStatus))
    return reply.code(httpStatusOf(status)).send({ status, dependencies: results.map(dependency) })
  })

  fastify.get('/:name', {
    ...PROTECTED,
    schema: {
      ...healthRouteSchema({
        summary: 'One dependency in isolation',
        description: 'For example `/health/database` or `/health/cache`. An unknown name answers 404.'
      }, DependencyResult),
      params: Type.Object({ name: Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' }) })
    }
  }, async (request, reply) => {
    const { name } = request.params
    if (!health.has(name)) throw problem('NotFound', { detail: `No dependency is named ${name}.` })
    const result = await health.run(name)
    return reply.code(httpStatusOf(result.status)).send(dependency(result))
  })
}
