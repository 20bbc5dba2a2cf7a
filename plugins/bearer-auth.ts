import fp from 'fastify-plugin'
import fastifyAuth from '@fastify/auth'
import formbody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload, RouteOptions, preValidationHookHandler } from 'fastify'
import { insufficientScopeProblem, invalidRequestProblem, invalidTokenProblem, missingTokenProblem, type ChallengeSettings } from '../src/auth/challenge.ts'
import { buildTokenVerifier } from '../src/auth/build-verifier.ts'
import { InvalidAuthRequestError, InvalidTokenError, TokenCheckUnavailableError } from '../src/auth/errors.ts'
import type { Principal } from '../src/auth/principal.ts'
import { securityOf } from '../src/auth/openapi-security.ts'
import { protectedResourceMetadataUrl } from '../src/auth/resource-metadata.ts'
import { bodyMayCarryToken, extractBodyToken, extractHeadToken, onePlace, type TokenSource } from '../src/auth/token-extraction.ts'
import { tokenTransportIsSafe } from '../src/auth/transport.ts'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
// Brings in the `security` member of route schemas.
import type {} from '@fastify/swagger'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller proven by a bearer token; undefined when the request is anonymous. */
    principal?: Principal
    /** Where the verified token came from (header, query or body). */
    tokenSource?: TokenSource
    /** Why authentication refused the request from its head; answered once the rate limit counted it. */
    authRefusal?: unknown
  }
  interface FastifyInstance {
    /** Every scope some route declares, for the protected-resource metadata and the documents. */
    declaredScopes: ReadonlySet<string>
  }
}

type CallbackGuard = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

function asArray<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** Maps a failure of extraction or verification to its RFC 6750 answer. */
function problemFor (error: unknown, settings: ChallengeSettings): unknown {
  if (error instanceof InvalidAuthRequestError) return invalidRequestProblem(settings, error.message)
  if (error instanceof InvalidTokenError) return invalidTokenProblem(settings, error.reason)
  if (error instanceof TokenCheckUnavailableError) {
    return problem('TokenCheckUnavailable')
  }
  return error
}

// RFC 6750 section 2.3: a response to a request whose token travelled in the URL must not be cached.
// A callback hook: it runs on every guarded request, and an async one would cost a promise each time.
function noStoreForQueryTokens (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (request.tokenSource === 'query' && reply.statusCode < 300) {
    reply.header('cache-control', 'private, no-store')
    reply.header('pragma', 'no-cache')
  }
  done(null, payload)
}

async function bearerAuth (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  const settings: ChallengeSettings = {
    realm: config.AUTH_REALM,
    resourceMetadata: config.AUTH_RESOURCE_URL === undefined ? undefined : protectedResourceMetadataUrl(config.AUTH_RESOURCE_URL)
  }

  const { verify: verifyToken, keys } = buildTokenVerifier(config, {
    denyList: fastify.tokenDenyList,
    onDependencyError: (what, error) => fastify.log.warn({ dependency: what, cause: error.message }, 'token check dependency failed')
  })
  if (keys.kind === 'development') {
    fastify.log.warn({ keyFile: keys.path, created: keys.created },
      'development mode: tokens are verified with a local development key (npm run token prints one); set AUTH_JWT_SECRET, AUTH_PUBLIC_KEY_FILE, AUTH_JWKS_URL or AUTH_INTROSPECTION_URL for real use')
  }

  // The form-body token source needs form bodies parsed (RFC 6750 section 2.2).
  if (!fastify.hasContentTypeParser('application/x-www-form-urlencoded')) await fastify.register(formbody)
  if (!fastify.hasDecorator('auth')) await fastify.register(fastifyAuth)

  fastify.decorateRequest('principal', undefined)
  fastify.decorateRequest('tokenSource', undefined)
  fastify.decorateRequest('authRefusal', undefined)

  /** Answers a refusal whatever happens in the mapping: a throw here would leave the request hanging. */
  function refusal (error: unknown): Error {
    try {
      return problemFor(error, settings) as Error
    } catch (mappingError) {
      return mappingError as Error
    }
  }

  function checkedTransport<T> (request: FastifyRequest, extracted: T): T {
    if (extracted !== undefined && !tokenTransportIsSafe(request, config.AUTH_ALLOW_INSECURE_HTTP)) {
      throw new InvalidAuthRequestError('A token must be sent over HTTPS: this request came over plain HTTP, so treat the token as exposed and get a new one.')
    }
    return extracted
  }

  // A token in the head (header or query) is verified from the head, before the body is read: a
  // body sent with a forged token or none costs the server nothing to refuse. A refusal is only
  // noted here and answered in preParsing, after the rate limit has counted it against the address
  // (so not through @fastify/auth, which answers a refusal at once; it composes the later checks).
  // Callback style like authorizeScopes: one promise (the verifier's) per request, not three.
  function authenticateHead (optional: boolean) {
    return function authenticateBearerHead (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
      let head: ReturnType<typeof extractHeadToken>
      try {
        head = checkedTransport(request, extractHeadToken(request, { allowQuery: config.AUTH_QUERY_TOKEN }))
      } catch (error) {
        request.authRefusal = refusal(error)
        done()
        return
      }
      if (head === undefined) {
        // A form body may still carry the token (RFC 6750 section 2.2): that is decided once it is read.
        if (!optional && !bodyMayCarryToken(request)) request.authRefusal = missingTokenProblem(settings)
        done()
        return
      }
      verifyToken(head.token).then(principal => {
        request.principal = principal
        request.tokenSource = head.source
        done()
      }, error => {
        request.authRefusal = refusal(error)
        done()
      })
    }
  }

  function answerRefusal (request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: (error: Error | null, payload?: RequestPayload) => void): void {
    if (request.authRefusal === undefined) done(null, payload)
    else done(request.authRefusal as Error)
  }

  // After the body is read: a form-body token, and never a second token beside the head's.
  function authenticateBody (optional: boolean): CallbackGuard {
    return function authenticateBearerBody (request, _reply, done) {
      let body: ReturnType<typeof extractBodyToken>
      try {
        body = checkedTransport(request, extractBodyToken(request))
        if (body !== undefined && request.tokenSource !== undefined) throw new InvalidAuthRequestError(onePlace([request.tokenSource, 'body']))
      } catch (error) {
        done(refusal(error))
        return
      }
      if (body === undefined) {
        done(request.principal !== undefined || optional ? undefined : missingTokenProblem(settings))
        return
      }
      verifyToken(body.token).then(principal => {
        request.principal = principal
        request.tokenSource = 'body'
        done()
      }, error => { done(refusal(error)) })
    }
  }

  // Callback style, not async: the check is synchronous, and a promise per request would cost
  // every authenticated request (more so with tracing on, whose context follows every promise).
  function authorize (required: readonly string[], optional: boolean): CallbackGuard {
    return function authorizeScopes (request, _reply, done) {
      const principal = request.principal
      if (principal === undefined) {
        done(optional ? undefined : missingTokenProblem(settings))
        return
      }
      for (const scope of required) {
        if (!principal.scopes.has(scope)) {
          done(insufficientScopeProblem(settings, required))
          return
        }
      }
      done()
    }
  }

  function guard (required: readonly string[], optional: boolean): preValidationHookHandler {
    return fastify.auth([authenticateBody(optional), authorize(required, optional)], { relation: 'and' })
  }

  const declaredScopes = new Set<string>()
  fastify.decorate('declaredScopes', declaredScopes)

  // Routes declare access in their policy; the check runs before validation, so an anonymous caller
  // learns nothing from validation errors, and a form-body token is gone before the schema sees it.
  fastify.routeSteps.add('bearer-auth', function guardRoute (this: FastifyInstance, route: RouteOptions) {
    const { access, scopes } = routePolicy(route, this)
    // The same declaration is the operation's security requirement in the OpenAPI documents.
    if (route.schema?.security === undefined && access !== 'public') {
      route.schema = { ...route.schema, security: securityOf({ access, scopes }) }
    }
    if (access === 'public') return
    const optional = access === 'optional'
    for (const scope of scopes) declaredScopes.add(scope)
    // Load shedding's onRequest hook and the rate limit's preParsing hook are in place already (their
    // steps run first, src/http/policy/route-hooks.ts): an overloaded instance sheds before it verifies a
    // token, and a refusal is counted before it is answered.
    addRouteHook(route, 'onRequest', authenticateHead(optional))
    addRouteHook(route, 'preParsing', answerRefusal)
    route.preValidation = [guard(scopes, optional), ...asArray(route.preValidation)]
    if (config.AUTH_QUERY_TOKEN) route.onSend = [...asArray(route.onSend), noStoreForQueryTokens]
  })
}

export default fp(bearerAuth, { name: 'bearer-auth', fastify: '5.x', dependencies: ['config', 'problem-details', 'deny-list', 'route-hooks'] })
