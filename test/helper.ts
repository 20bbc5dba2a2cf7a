import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import fp from 'fastify-plugin'
import { SignJWT, type CryptoKey, type KeyObject } from 'jose'
import app from '../src/app.ts'
import { loadConfig, type Config } from '../src/config.ts'
import { serverOptions } from '../src/server-options.ts'
import { setRoutePolicyDefaults } from '../src/http/policy/route-policy.ts'
import type { ApiVersionRow } from '../src/versioning/versions.ts'
import { emptyDataDir, freshDataDir } from './support/pglite-template.ts'
import { deleteRedisKeys } from './support/services.ts'
import { sharedEmbeddedDatabase } from './support/shared-embedded-database.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface BuildOptions {
  /** Settings beyond the test defaults, by environment name. */
  env?: Record<string, string>
  /** Runs on the bare instance before the app is registered (e.g. an onRoute hook that sees every route). */
  beforeApp?: (app: FastifyInstance) => void
  /**
   * Routes a test adds beside the service's own, registered after the app. They are public unless they
   * declare scopes, or `guardExtraRoutes` is set (a test of deny by default itself).
   */
  extraRoutes?: (app: FastifyInstance) => void
  guardExtraRoutes?: boolean
  /** The API version table, when not the service's own: a build that serves an extra version. */
  versionRows?: readonly ApiVersionRow[]
  /** Where the app's log lines go (JSON, one per line), for tests that read the log. */
  logStream?: { write: (line: string) => void }
  /**
   * Without DATABASE_URL, the app's embedded database runs as in production: a process of its own on
   * the database under DATA_DIR (a fresh one unless the test names DATA_DIR), started and migrated by
   * the app. For tests of that process's life and of what lands in DATA_DIR. Otherwise the app gets a
   * database of its own, already migrated, on a server this test process shares among its apps
   * (test/support/shared-embedded-database.ts), and DATA_DIR holds only the app's other files.
   */
  ownDatabaseProcess?: boolean
}

/** The HS256 secret every test app verifies tokens with, unless a test names another key setting. */
export const TEST_JWT_SECRET = 'test-secret-for-hs256-tokens-0123456789abcdef'

/**
 * Settings for a test: the defaults, a quiet log, the test secret, and what the test names.
 * A setting given as '' is unset (so `{ AUTH_JWT_SECRET: '' }` runs without the test secret).
 */
export function testConfig (env: Record<string, string> = {}): Config {
  // Load shedding is off unless a test turns it on: the embedded database's start-up work and the
  // parallel test processes on a small machine delay the event loop far more than production traffic.
  // A production app of a test runs on the embedded database as production allows it: said explicitly.
  const database = env.NODE_ENV === 'production' && env.DATABASE_URL === undefined ? { DATABASE_EMBEDDED: 'true' } : {}
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AUTH_JWT_SECRET: TEST_JWT_SECRET, SHED_MAX_EVENT_LOOP_DELAY_MS: '0', ...database, ...env })
}

export interface MintOptions {
  /** Space-separated scopes for the `scope` claim. */
  scope?: string
  sub?: string
  /** Lifetime: seconds, or a jose time span such as '15m'. Default 5 minutes. */
  ttl?: number | string
  /** Explicit `exp` (seconds since the epoch), e.g. in the past for an expired token. */
  exp?: number
  nbf?: number
  iss?: string
  aud?: string | string[]
  jti?: string
  /** Further claims, e.g. `scp`. */
  claims?: Record<string, unknown>
  /** Protected header fields beyond alg, e.g. `kid`. */
  header?: Record<string, unknown>
  /** Signing algorithm; default HS256. */
  alg?: string
  /** Signing key; default the test secret. */
  key?: CryptoKey | KeyObject | Uint8Array
}

/** Signs an access token with jose, independently of the code under test. */
export async function mintToken (options: MintOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = { ...options.claims }
  if (options.scope !== undefined) claims.scope = options.scope
  if (options.nbf !== undefined) claims.nbf = options.nbf
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ typ: 'at+jwt', ...options.header, alg: options.alg ?? 'HS256' })
    .setIssuedAt()
    .setSubject(options.sub ?? 'test-user')
  if (options.exp !== undefined) jwt.setExpirationTime(options.exp)
  else jwt.setExpirationTime(typeof options.ttl === 'number' ? Math.floor(Date.now() / 1000) + options.ttl : options.ttl ?? '5m')
  if (options.iss !== undefined) jwt.setIssuer(options.iss)
  if (options.aud !== undefined) jwt.setAudience(options.aud)
  if (options.jti !== undefined) jwt.setJti(options.jti)
  return jwt.sign(options.key ?? new TextEncoder().encode(TEST_JWT_SECRET))
}

/** `{ authorization: 'Bearer ...' }` for a freshly minted token. */
export async function bearer (options: MintOptions = {}): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await mintToken(options)}` }
}

/** The URL of a real service a test needs, or undefined after a visible skip (a failure under CI). */
export { requireService as serviceUrl } from './support/services.ts'

/**
 * A key prefix no other test or run shares, for tests on the shared Redis at `url`; every key under it
 * is deleted when the test ends. Called before `build`, its cleanup runs after the apps have closed.
 */
export function uniqueRedisPrefix (t: Teardown, url: string, name: string): string {
  const prefix = `test:${name}:${process.pid}:${Date.now().toString(36)}${randomBytes(3).toString('hex')}:`
  t.teardown(async () => await deleteRedisKeys(url, `${prefix}*`))
  return prefix
}

/** Builds the whole app with explicit settings and closes it when the test ends. */
export async function build (t: Teardown, options: BuildOptions = {}): Promise<FastifyInstance> {
  const own = options.ownDatabaseProcess === true
  const config = testConfig({ DATA_DIR: own ? await freshDataDir(t) : emptyDataDir(t), ...options.env })
  const shared = own || config.DATABASE_URL !== undefined ? undefined : await sharedEmbeddedDatabase()
  let fastify: FastifyInstance | undefined
  try {
    const base = serverOptions(config, options.versionRows)
    fastify = Fastify(options.logStream === undefined ? base : { ...base, logger: { ...(base.logger as object), stream: options.logStream } })
    t.teardown(() => fastify?.close())
    options.beforeApp?.(fastify)
    await fastify.register(fp(app), { config, versionRows: options.versionRows, startEmbeddedDatabase: shared })
    if (options.extraRoutes !== undefined) {
      await fastify.register(async scope => {
        // A test's own routes are about another concern: public unless they declare scopes or say otherwise.
        if (options.guardExtraRoutes !== true) setRoutePolicyDefaults(scope, { public: true })
        options.extraRoutes?.(scope)
      })
    }
    await fastify.ready()
    return fastify
  } catch (error) {
    // Closed at once, not when the test ends, so its database server goes to the test's next app;
    // the build's error is the one the test sees.
    await fastify?.close().catch(() => {})
    shared?.release()
    throw error
  }
}

/** An app whose injected requests carry a valid token, for tests of token-guarded routes' other behaviour. */
export async function buildWithToken (t: Teardown, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = await build(t, options)
  const token = await bearer()
  const inject = app.inject.bind(app) as (options: InjectOptions) => Promise<unknown>
  Object.assign(app, { inject: (options: InjectOptions) => inject({ ...options, headers: { ...token, ...options.headers } }) })
  return app
}

/**
 * One app per test file for the tests that change neither its settings nor its state: made with
 * `options` (by `make`, build by default) for the first test that asks, closed when the file ends.
 */
export function sharedApp (options: BuildOptions = {}, make: typeof build = build): () => Promise<FastifyInstance> {
  let app: Promise<FastifyInstance> | undefined
  return async () => await (app ??= import('tap').then(async ({ default: root }) => await make(root, options)))
}

/** Every scope of the vagas and candidatos API. */
export const ALL_SCOPES = 'vagas:read vagas:write candidatos:read candidatos:write'

/**
 * An app built with `options`, once it serves (its database migrated), and the headers of a token
 * with every scope of the API (or the claims given).
 */
export async function buildServing (t: Teardown, options: BuildOptions = {}, token: MintOptions = { scope: ALL_SCOPES, sub: 'recrutadora-1' }): Promise<{ app: FastifyInstance, auth: { authorization: string } }> {
  const app = await build(t, options)
  await app.health.lifecycle.reached('serving')
  return { app, auth: await bearer(token) }
}
