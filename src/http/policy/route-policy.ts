import type { FastifyInstance, RouteOptions } from 'fastify'
// Brings in the `rateLimit` member of route configs.
import type {} from '@fastify/rate-limit'

/**
 * The route policy: everything the shared plugins decide per route (access, load shedding, rate
 * limiting, the handler timer, metrics, traces, the access log, caching, the database gate, API
 * versions) is declared here and resolved here, once per route, by `routePolicy`. Every plugin reads
 * the resolved policy in its route step; none reads another plugin's rewrites or the URL. The order of
 * the hooks the steps add is ROUTE_STEP_ORDER's (src/http/policy/route-hooks.ts), not the order plugins load in.
 *
 * A route declares only what differs from a business route, in flat `config` keys. A scope may give
 * defaults to the routes declared in it (`setRoutePolicyDefaults`): the docs are public, every route
 * under `/api/vagas` needs the database. A route's own declaration wins over its scope's.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Anyone may call the route without a token. A route declaring neither this nor `scopes` requires a token. */
    public?: boolean
    /** Scopes a bearer token must carry (all of them). */
    scopes?: readonly string[]
    /** `optional`: a token is verified when one is sent, and the route also answers without one. */
    auth?: 'optional'
    /**
     * Polled by balancers and orchestrators (/ping, the health probes). A probe's defaults differ from a
     * business route's: not shed, not rate limited, no request histogram, no handler timer, no trace
     * spans (unless TRACE_PROBES), no access log line (`logLevel: 'warn'`, errors are still logged).
     */
    probe?: boolean
    /** `false`: the route keeps answering while the process sheds load. */
    shed?: boolean
    // `rateLimit` (`false`: never rate limited) is declared by @fastify/rate-limit.
    /**
     * `false`: no HANDLER_TIMEOUT timer, for a route that answers from memory and waits on nothing:
     * the timer (an AbortController, a timeout and a close listener per request) costs more than such
     * a route's own work (docs/benchmarks.md, "Costs behind the code"). Probes have none unless they say `true`.
     */
    handlerTimer?: boolean
    /** `false`: the route stays out of the request-duration histogram. */
    metrics?: boolean
    /** The route's answers may be stored by caches; by default they may not. */
    cacheable?: boolean
    /**
     * The route needs the database: it answers 503 `Starting` until the instance first turns ready, and
     * 503 `DatabaseUnavailable` while the database is down (both after authentication and validation).
     */
    database?: boolean
    /** An `/api` route that every version serves unchanged (it declares no `constraints.apiVersion`). */
    apiVersionNeutral?: boolean
    /** The resolved policy, stored once on the route by `routePolicy`. */
    [RESOLVED]?: RoutePolicy
  }
}

const RESOLVED: unique symbol = Symbol('resolved route policy')
const SCOPE_DEFAULTS = Symbol('route policy defaults')

/** What a route or a scope may declare: the route `config` keys above. */
export type RoutePolicyDeclaration = Pick<NonNullable<RouteOptions['config']>,
  'public' | 'scopes' | 'auth' | 'probe' | 'shed' | 'rateLimit' | 'handlerTimer' | 'metrics' | 'cacheable' | 'database' | 'apiVersionNeutral'>

/** The policy of one route, every field decided. */
export interface RoutePolicy {
  /**
   * `public`: no token is read. `token`: a valid bearer token carrying every one of `scopes` is required.
   * `optional`: a token is verified (and must carry `scopes`) when one is sent; without one the route answers.
   */
  readonly access: 'public' | 'token' | 'optional'
  /** The scopes a token must carry; empty when any valid token will do. */
  readonly scopes: readonly string[]
  /** Polled by balancers and orchestrators; decides the defaults of the fields below. */
  readonly probe: boolean
  /** Refused with 503 `Overloaded` while the process sheds load. */
  readonly shed: boolean
  /** Counted against RATE_LIMIT_MAX. */
  readonly rateLimited: boolean
  /** Bounded by HANDLER_TIMEOUT (503 `HandlerTimeout`, `request.signal` aborts). */
  readonly timed: boolean
  /** Observed in the request-duration histogram. */
  readonly metrics: boolean
  /** Makes request spans when tracing is on (probes only with TRACE_PROBES). */
  readonly traced: boolean
  /** Writes an access log line per request; without, only warnings and errors are logged. */
  readonly accessLog: boolean
  /** Its answers may be cached: no `Cache-Control: no-store`. */
  readonly cacheable: boolean
  /** Gated on the database: 503 `Starting` before the first ready, 503 `DatabaseUnavailable` while it is down. */
  readonly database: boolean
  /** Under `/api`, served unchanged by every version. */
  readonly versionNeutral: boolean
}

type Flags = Omit<RoutePolicy, 'access' | 'scopes' | 'probe' | 'versionNeutral'>

/** A business route: shed, rate limited, timed, measured, traced and logged; never cached. */
const BUSINESS_ROUTE: Flags = { shed: true, rateLimited: true, timed: true, metrics: true, traced: true, accessLog: true, cacheable: false, database: false }

/** A probe: polled every few seconds, it must answer under load and cost next to nothing. */
const PROBE: Flags = { shed: false, rateLimited: false, timed: false, metrics: false, traced: false, accessLog: false, cacheable: false, database: false }

function accessOf (declared: RoutePolicyDeclaration): Pick<RoutePolicy, 'access' | 'scopes'> {
  const scopes = declared.scopes ?? []
  if (declared.auth === 'optional') return { access: 'optional', scopes }
  if (declared.public === true) return { access: 'public', scopes: [] }
  // Deny by default: a route that declares neither scopes nor `public` needs a valid token.
  return { access: 'token', scopes }
}

const declaresAccess = (declared: RoutePolicyDeclaration): boolean =>
  declared.public !== undefined || declared.scopes !== undefined || declared.auth !== undefined

/** Resolves a route's declaration over its scope's defaults. Pure: the tests call it directly. */
export function resolveRoutePolicy (declared: RoutePolicyDeclaration = {}, defaults: RoutePolicyDeclaration = {}): RoutePolicy {
  const probe = declared.probe ?? defaults.probe ?? false
  const base = probe ? PROBE : BUSINESS_ROUTE
  const pick = <K extends keyof RoutePolicyDeclaration>(key: K) => declared[key] ?? defaults[key]
  const rateLimit = pick('rateLimit')
  return {
    ...accessOf(declaresAccess(declared) ? declared : defaults),
    probe,
    shed: pick('shed') ?? base.shed,
    rateLimited: rateLimit === undefined ? base.rateLimited : rateLimit !== false,
    timed: pick('handlerTimer') ?? base.timed,
    metrics: pick('metrics') ?? base.metrics,
    traced: base.traced,
    accessLog: base.accessLog,
    cacheable: pick('cacheable') ?? base.cacheable,
    database: pick('database') ?? base.database,
    versionNeutral: pick('apiVersionNeutral') ?? false
  }
}

type ScopeWithDefaults = FastifyInstance & { [SCOPE_DEFAULTS]?: RoutePolicyDeclaration }

/**
 * Defaults for every route declared in `scope` and the scopes below it. Call it before the routes are
 * declared. Child scopes see their parent's defaults (Fastify makes them from it with Object.create).
 */
export function setRoutePolicyDefaults (scope: FastifyInstance, defaults: RoutePolicyDeclaration): void {
  const target = scope as ScopeWithDefaults
  target[SCOPE_DEFAULTS] = { ...target[SCOPE_DEFAULTS], ...defaults }
}

/**
 * The route's policy. From a route step (or an `onRoute` hook) pass its `this`, the scope declaring the route, so
 * its defaults count. The first call resolves and stores the policy on the route's config (copies of
 * the options made later, such as Fastify's HEAD route, carry it); later calls read it.
 */
export function routePolicy (route: RouteOptions, scope?: FastifyInstance): RoutePolicy {
  const stored = route.config?.[RESOLVED]
  if (stored !== undefined) return stored
  const policy = resolveRoutePolicy(route.config, (scope as ScopeWithDefaults | undefined)?.[SCOPE_DEFAULTS])
  route.config = { ...route.config, [RESOLVED]: policy }
  return policy
}
