import fp from 'fastify-plugin'
import fastifyMetricsModule from 'fastify-metrics'
import promClient from 'prom-client'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { buildInfo } from '../src/build-info.ts'
import { gaugeValueOf } from '../src/health/status.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry, served by GET /metrics. */
    metricsRegistry: promClient.Registry
  }
}

/**
 * Prometheus metrics for GET /metrics (scope `metrics:read`): request duration by route pattern, method
 * and status; every health check's status and latency; process and event-loop metrics. Each app has
 * its own registry, so two apps in one process never share or clash over metrics.
 */
async function metrics (fastify: FastifyInstance): Promise<void> {
  const registry = new promClient.Registry()
  const { health } = fastify
  fastify.decorate('metricsRegistry', registry)

  await fastify.register(fastifyMetricsModule.default, {
    // The endpoint is routes/metrics.ts (src/metrics/metrics-route.ts), so it is documented and guarded like every other route.
    endpoint: null,
    promClient: { ...promClient, register: registry },
    defaultMetrics: { enabled: true, register: registry },
    // Not the library's route metrics: its onRequest and onResponse hooks run on every request (probes
    // included) and time each through a WeakMap; the histogram below is one hook on measured routes only.
    routeMetrics: { enabled: false }
  })

  const requestDuration = new promClient.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by route pattern',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry]
  })
  // Only routes the service declares, labelled by their pattern (/health/:name), never the raw URL.
  // A route-level hook, so that /ping and the probes (no `metrics` in their policy) run no metrics code at all.
  fastify.routeSteps.add('metrics', function measureRoute (this: FastifyInstance, route: RouteOptions) {
    if (!routePolicy(route, this).metrics) return
    const pattern = route.url
    function observeDuration (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      requestDuration.observe({ method: request.method, route: pattern, status_code: reply.statusCode }, reply.elapsedTime / 1000)
      done()
    }
    addRouteHook(route, 'onResponse', observeDuration)
  })

  // prom-client names these gauges with a counter's `_total` suffix, which Prometheus' linter refuses;
  // the same counts remain available by type as nodejs_active_handles and nodejs_active_requests.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name)
  }

  // The Prometheus convention for what is running: always 1, the facts are the labels.
  new promClient.Gauge({
    name: 'recrutamento_api_build_info',
    help: 'Always 1; labelled with the service version, the source commit it was built from and the Node.js version',
    labelNames: ['version', 'revision', 'nodejs_version'],
    registers: [registry]
  }).set({ version: buildInfo.version, revision: buildInfo.commit, nodejs_version: buildInfo.runtime.version }, 1)

  // Gauges read the registry's newest results when scraped: scraping runs no check.
  registry.registerMetric(new promClient.Gauge({
    name: 'health_check_status',
    help: 'Newest result of each health check: 1 Healthy, 0.5 Degraded, 0 anything else',
    labelNames: ['check', 'status'],
    registers: [],
    collect () {
      this.reset()
      for (const name of health.names()) {
        const result = health.latest(name)
        if (result !== undefined) this.set({ check: name, status: result.status }, gaugeValueOf(result.status))
      }
    }
  }))
  registry.registerMetric(new promClient.Gauge({
    name: 'health_check_latency_seconds',
    help: 'Duration of the newest run of each health check, in seconds',
    labelNames: ['check'],
    registers: [],
    collect () {
      this.reset()
      for (const name of health.names()) {
        const result = health.latest(name)
        if (result !== undefined) this.set({ check: name }, result.latencyMs / 1000)
      }
    }
  }))
  registry.registerMetric(new promClient.Gauge({
    name: 'health_ready',
    help: 'Whether this instance is ready for traffic (1) or not (0)',
    registers: [],
    collect () {
      this.set(gaugeValueOf(health.readiness().status) > 0 ? 1 : 0)
    }
  }))
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['health', 'route-hooks'] })
