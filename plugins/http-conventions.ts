import fp from 'fastify-plugin'
import FindMyWay from 'find-my-way'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { httpDateNow } from '../src/http/conventions/http-date.ts'
import { NO_STORE_HEADERS } from '../src/http/conventions/no-store.ts'
import type { Problem } from '../src/http/problems/problem.ts'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { canonicalPath, originTarget, uriRuleViolation } from '../src/http/conventions/uri-rules.ts'
import { headerCount } from '../src/http/input/raw-headers.ts'

export interface HttpConventionsOptions {
  /** Paths served by third-party plugins (documents, well-known URIs) that the URI rules do not bind. */
  uriRuleExemptPrefixes?: string[]
}

const DEFAULT_EXEMPT_PREFIXES = ['/docs', '/.well-known/']

/**
 * Every path the service serves, with its methods, so a miss can tell 404 from 405 and answer OPTIONS.
 * A second router is kept because Fastify's own does not say which methods a path has.
 */
function createRouteTable () {
  const router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true })
  const methodsByPath = new Map<string, Set<string>>()

  return {
    add (path: string, methods: string[]) {
      let known = methodsByPath.get(path)
      if (known === undefined) {
        known = new Set(['OPTIONS'])
        methodsByPath.set(path, known)
        router.on('GET', path, () => {}, known)
      }
      for (const method of methods) known.add(method)
    },
    methodsAt (path: string): Set<string> | undefined {
      return router.find('GET', path)?.store as Set<string> | undefined
    },
    /** Every method some path serves: what OPTIONS * lists. */
    allMethods (): Set<string> {
      return new Set([...methodsByPath.values()].flatMap(methods => [...methods]))
    }
  }
}

type HookDone = (error: Error | null, payload: unknown) => void

declare module 'fastify' {
  interface FastifyInstance {
    /** The answer to a request no route matched: OPTIONS 200, 405 with Allow, 301 to the canonical path, or 404. */
    answerUnrouted: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>
  }
  interface FastifyRequest {
    /** The route's policy says `cacheable`: its answer gets no `no-store`. */
    cacheable: boolean
  }
}

function markCacheable (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.cacheable = true
  done()
}

function pathOf (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function allowHeader (methods: Set<string>): string {
  return [...methods].sort().join(', ')
}

async function httpConventions (fastify: FastifyInstance, opts: HttpConventionsOptions): Promise<void> {
  const exemptPrefixes = opts.uriRuleExemptPrefixes ?? DEFAULT_EXEMPT_PREFIXES
  const routes = createRouteTable()

  // Request bodies are JSON. Fastify parses text/plain by default, which would hand a JSON route a
  // string to fail validation (400); without the parser it is refused with 415 like any other type.
  fastify.removeContentTypeParser('text/plain')

  // Which answers may be cached is known per route; the flag is set by a hook on those routes only.
  fastify.decorateRequest('cacheable', false)
  fastify.routeSteps.add('http-conventions', function declareRoute (this: FastifyInstance, route: RouteOptions) {
    if (routePolicy(route, this).cacheable) addRouteHook(route, 'onRequest', markCacheable)
    const path = route.url
    if (!exemptPrefixes.some(prefix => path.startsWith(prefix))) {
      const violation = uriRuleViolation(path)
      if (violation !== undefined) throw new Error(`Route ${path} breaks the URI rules: ${violation}`)
    }
    routes.add(path, Array.isArray(route.method) ? route.method : [route.method])
  })

  // RFC 9112 section 3.2: an HTTP/1.1 request without Host is refused with 400. Node would answer a
  // bare 400 of its own (its requireHostHeader option is off, see src/server-options.ts).
  // Two Host headers are refused too (RFC 9112 section 3.2): Node keeps the first and drops the other.
  fastify.addHook('onRequest', function requireHost (request: FastifyRequest, _reply: FastifyReply, done: (error?: Problem) => void) {
    if ((request.headers.host ?? '') === '' && request.raw.httpVersion !== '1.0') {
      done(problem('MissingHost'))
      return
    }
    if (headerCount(request.raw.rawHeaders, 'host') > 1) {
      done(problem('MalformedRequest', { detail: 'The request carries more than one Host header.' }))
      return
    }
    done()
  })

  // Runs on every response, /ping included: a callback hook, so no promise per request.
  fastify.addHook('onSend', function conventionHeaders (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: HookDone) {
    reply.header('x-request-id', request.id)
    if ((request.method === 'GET' || request.method === 'HEAD') && !reply.hasHeader('last-modified')) {
      reply.header('last-modified', httpDateNow())
    }
    if (!request.cacheable && !reply.hasHeader('cache-control')) {
      reply.headers(NO_STORE_HEADERS)
    }
    done(null, payload)
  })

  async function notFound (request: FastifyRequest, reply: FastifyReply) {
    // OPTIONS * asks about the server as a whole (RFC 9110 section 9.3.7).
    if (request.method === 'OPTIONS' && request.url === '*') {
      return reply.code(200).header('allow', allowHeader(routes.allMethods())).header('content-length', '0').send()
    }
    const path = pathOf(request.url)
    const methods = routes.methodsAt(path)
    if (methods !== undefined) {
      if (request.method === 'OPTIONS') {
        return reply.code(200).header('allow', allowHeader(methods)).header('content-length', '0').send()
      }
      throw problem('MethodNotAllowed', {
        detail: `${request.method} is not supported here; the methods are listed in Allow.`,
        headers: { allow: allowHeader(methods) }
      })
    }
    const canonical = canonicalPath(path)
    const canonicalMethods = canonical === path ? undefined : routes.methodsAt(canonical)
    if (canonicalMethods?.has(request.method) === true && (request.method === 'GET' || request.method === 'HEAD')) {
      // Built from the URL the client sent: a rewritten URL (`/api/v2/x` routed as `/api/x`) keeps its
      // version. Only its path and query: never a host the client named.
      const sent = originTarget(request.originalUrl)
      return reply.code(301).header('location', canonicalPath(sent.path) + sent.query).send()
    }
    throw problem('NotFound')
  }
  fastify.setNotFoundHandler(notFound)
  fastify.decorate('answerUnrouted', notFound)
}

// After tracing: its onRequest hook takes the query out of the span's url.path before any refusal here.
export default fp(httpConventions, { name: 'http-conventions', fastify: '5.x', dependencies: ['problem-details', 'tracing', 'route-hooks'] })
