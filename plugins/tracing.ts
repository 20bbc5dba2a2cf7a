import fp from 'fastify-plugin'
import type { SpanContext } from '@opentelemetry/api'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type {} from '@fastify/otel'
import { PROBLEM_CONTENT_TYPE } from '../src/http/problems/problem.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { principalSubjectHash, problemCode } from '../src/tracing/request-span.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request span's ids while a trace is recorded for it (the access line carries them), else null. */
    traceContext: SpanContext | null
  }
}

/**
 * Completes the request spans @fastify/otel makes when tracing is on (src/tracing/preload.ts), which
 * its requestHook has named by method and route pattern, with the HTTP attributes and the API version
 * (src/tracing/request-span.ts): the caller's subject hash and the problem code of an error answer.
 * Probes make no spans unless TRACE_PROBES is true.
 */
async function tracing (fastify: FastifyInstance): Promise<void> {
  fastify.decorateRequest('traceContext', null)
  if (!fastify.hasPlugin('@fastify/otel')) return

  if (!fastify.config.TRACE_PROBES) {
    fastify.routeSteps.add('tracing', function untracedRoute (this: FastifyInstance, route: RouteOptions) {
      // A copy: probe routes share one config object.
      if (!routePolicy(route, this).traced) route.config = { ...route.config, otel: false }
    })
  }

  fastify.addHook('onSend', function completeRequestSpan (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) {
    const span = request.traceContext === null ? undefined : request.opentelemetry().span
    if (span != null) {
      const subject = request.principal === undefined ? undefined : principalSubjectHash(request.principal)
      if (subject !== undefined) span.setAttribute('enduser.pseudo.id', subject)
      const code = reply.statusCode >= 400 && reply.getHeader('content-type') === PROBLEM_CONTENT_TYPE ? problemCode(payload) : undefined
      if (code !== undefined) {
        span.setAttribute('problem.code', code)
        // A 5xx is the server's failure: @fastify/otel marks the span as an error, this names its cause.
        if (reply.statusCode >= 500) span.setAttribute('error.type', code)
      }
    }
    done(null, payload)
  })
}

export default fp(tracing, { name: 'tracing', fastify: '5.x', dependencies: ['config', 'problem-details', 'route-hooks'] })
