import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { buildVersionTable } from './versioning/versions.ts'
import { SERVICE_ROLES } from './roles.ts'
import { describeUnknown, unknownSettings } from './unknown-settings.ts'

// A *_FILE setting holds a path; PEM text there is a key pasted where its file belongs.
const NOT_PEM = '^(?![\\s\\S]*-----BEGIN )'
// Settings whose values stay out of error messages: secrets, and URLs that may carry a password.
const SECRET_SETTINGS = new Set(['AUTH_JWT_SECRET', 'AUTH_INTROSPECTION_CLIENT_SECRET', 'HEARTBEAT_TOKEN', 'DATABASE_URL', 'REDIS_URL'])

const ISO_DATE = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$'

// Every setting the service reads, by its environment name. Names are a contract: add, never rename.
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  // What this process does (docs/operations.md, "Roles"): the same image serves the API, sends webhook deliveries, or both.
  SERVICE_ROLE: Type.Union(SERVICE_ROLES.map(role => Type.Literal(role)), { default: 'all', description: 'all, api or worker: serve the API and send webhook deliveries, serve the API only (deliveries are queued, not sent), or send deliveries only' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'an integer port from 0 to 65535' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'a host name or address to bind' }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map(level => Type.Literal(level)), { default: 'info' }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(true|false|\\d+|[0-9a-fA-F.:/]+(,\\s*[0-9a-fA-F.:/]+)*)$',
    description: 'true, false, a hop count, or a comma-separated list of proxy addresses/CIDRs'
  }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// connection URL' })),
  DATA_DIR: Type.String({ minLength: 1, default: './.data', description: 'a directory path' }),
  // In production the embedded database is used only when asked for: a missing DATABASE_URL is a mistake there.
  DATABASE_EMBEDDED: Type.Boolean({ default: false, description: 'true or false: run on the embedded database under DATA_DIR (production needs it said; elsewhere it is the default without DATABASE_URL)' }),
  // Starts in production despite settings that look like this service's but are unknown (see unknown-settings.ts).
  ALLOW_UNKNOWN_SETTINGS: Type.Boolean({ default: false, description: 'true or false: start in production even with unknown settings that look like this service\'s' }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'PostgreSQL connections per instance, from 1 to 1000' }),
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true, description: 'true or false: send statements as named prepared statements (false behind a pooler in transaction mode)' }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600000, description: 'milliseconds a PostgreSQL statement may run or wait for a lock before it is cancelled and its transaction rolled back, from 0 (no limit) to 3600000; unset: a second less than HANDLER_TIMEOUT' })),
  EVENT_RETENTION_HOURS: Type.Integer({ minimum: 1, maximum: 87600, default: 168, description: 'hours an event stays in the feed before the purge removes it, from 1 to 87600' }),
  // Webhooks (docs/api.md, "Webhooks"): the dispatch interval is also the slowest a waiting delivery is picked up.
  WEBHOOK_DISPATCH_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 1000, description: 'milliseconds between looks for new events to deliver, from 100 to 60000' }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 10000, description: 'milliseconds a receiver has to answer a delivery, from 100 to 60000' }),
  WEBHOOK_RETRY_LIMIT: Type.Integer({ minimum: 0, maximum: 100, default: 15, description: 'retries of a failed delivery, from 0 to 100' }),
  WEBHOOK_RETRY_DELAY_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 10, description: 'seconds before the first retry, doubling for each next one, from 1 to 3600' }),
  WEBHOOK_RETRY_DELAY_MAX_SECONDS: Type.Integer({ minimum: 1, maximum: 86400, default: 3600, description: 'the longest wait between two retries, in seconds from 1 to 86400' }),
  WEBHOOK_DISABLE_AFTER_SECONDS: Type.Integer({ minimum: 0, maximum: 2592000, default: 432000, description: 'seconds a subscription may fail without a success before it is disabled, from 0 to 2592000' }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 2, description: 'deliveries to one subscription in flight at once across instances, from its batches and as many again from its retries, from 1 to 100' }),
  WEBHOOK_MAX_SUBSCRIPTIONS: Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'webhook subscriptions kept at most, from 1 to 10000' }),
  WEBHOOK_WORKERS: Type.Integer({ minimum: 1, maximum: 100, default: 8, description: 'batches, and fetches of up to 10 retried deliveries, worked at once per instance, from 1 to 100' }),
  // A transaction-mode pooler (PgBouncer) does not pass NOTIFY: there workers wake only at their poll.
  WEBHOOK_LISTEN_NOTIFY: Type.Boolean({ default: true, description: 'true or false: delivery workers listen (PostgreSQL LISTEN) for batches another process queued; false behind a transaction-mode pooler' }),
  // Loopback, private and link-local targets are refused unless this is on (a test, a closed network).
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false, description: 'true or false: accept webhook targets at loopback, private and link-local addresses' }),
  DATABASE_POOL_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 2000, description: 'milliseconds a query may wait for a pooled connection before the request answers 503, from 100 to 600000' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'a redis:// connection URL' })),
  REDIS_KEY_PREFIX: Type.String({ default: 'recrutamento:', pattern: '^[A-Za-z0-9:_.-]{0,64}$', description: 'a key prefix of up to 64 characters from A-Za-z0-9:_.-' }),
  // Every Redis command gives up after this long; while Redis is down or hung, commands fail at once.
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 60000, default: 100, description: 'milliseconds a Redis command may take before it fails, from 10 to 60000' }),
  // The local replica of the revocation list is reloaded from Redis this often, besides pub/sub updates.
  REVOCATION_RESYNC_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: 3600000, default: 30000, description: 'milliseconds between full reloads of the revocation list from Redis, from 1000 to 3600000' }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 104857600, default: 1048576, description: 'a byte count from 1024 to 104857600' }),
  // Limits on one request and one connection; every value is in bytes or milliseconds.
  HEADER_LIMIT: Type.Integer({ minimum: 1024, maximum: 1048576, default: 16384, description: 'the largest request head (request line and headers) in bytes, from 1024 to 1048576' }),
  REQUEST_TIMEOUT: Type.Integer({ minimum: 0, maximum: 3600000, default: 30000, description: 'milliseconds a client has to send a whole request, from 0 (no limit) to 3600000' }),
  KEEP_ALIVE_TIMEOUT: Type.Integer({ minimum: 1, maximum: 3600000, default: 72000, description: 'milliseconds an idle keep-alive connection stays open, from 1 to 3600000' }),
  CONNECTION_TIMEOUT: Type.Integer({ minimum: 0, maximum: 3600000, default: 120000, description: 'milliseconds of socket inactivity before the connection is closed, from 0 (no limit) to 3600000' }),
  MAX_CONNECTIONS: Type.Integer({ minimum: 0, maximum: 10000000, default: 0, description: 'connections the server holds open at once, from 1 to 10000000, or 0 for what the open-file limit leaves' }),
  NEW_CONNECTION_TIMEOUT: Type.Integer({ minimum: 100, maximum: 600000, default: 10000, description: 'milliseconds a new connection may stay silent before it is closed, from 100 to 600000' }),
  HANDLER_TIMEOUT: Type.Integer({ minimum: 0, maximum: 3600000, default: 10000, description: 'milliseconds a request may take from routing to answer before it gets a 503, from 0 (no limit) to 3600000' }),
  // What one connection may make the server hold (pipelined requests, unsent answers): docs/operations.md, "Limits".
  MAX_PIPELINED_REQUESTS: Type.Integer({ minimum: 1, maximum: 1000, default: 16, description: 'requests of one connection handled at once, from 1 to 1000' }),
  MAX_UNSENT_BYTES_PER_CONNECTION: Type.Integer({ minimum: 16384, maximum: 1073741824, default: 1048576, description: 'response bytes one connection may have waiting to be sent, from 16384 to 1073741824' }),
  UNSENT_DRAIN_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 10000, description: 'milliseconds a connection over MAX_UNSENT_BYTES_PER_CONNECTION has to fall back under it before it is reset, from 100 to 600000' }),
  // Rate limiting per token subject, else per client address; shared through Redis when REDIS_URL is set.
  RATE_LIMIT_MAX: Type.Integer({ minimum: 0, maximum: 1000000, default: 600, description: 'requests allowed per caller and window, from 0 (rate limiting off) to 1000000' }),
  RATE_LIMIT_WINDOW: Type.Integer({ minimum: 1000, maximum: 86400000, default: 60000, description: 'length of the rate-limit window in milliseconds, from 1000 to 86400000' }),
  // Bearer authentication (RFC 6750). With no key setting the service signs its own development tokens.
  AUTH_REALM: Type.String({ default: 'recrutamento-api', pattern: '^[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]{1,64}$', description: 'a realm name of 1 to 64 printable characters without " or \\' }),
  AUTH_ISSUER: Type.Optional(Type.String({ minLength: 1, description: 'the exact iss value tokens must carry' })),
  AUTH_AUDIENCE: Type.Optional(Type.String({ pattern: '^[^,\\s]+(,\\s*[^,\\s]+)*$', description: 'an aud value, or a comma-separated list of accepted ones' })),
  AUTH_JWT_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'an HS256 shared secret of at least 32 characters' })),
  AUTH_PUBLIC_KEY_FILE: Type.Optional(Type.String({ minLength: 1, pattern: NOT_PEM, description: 'a path to a PEM public key (RSA, RSA-PSS, EC P-256/384/521 or Ed25519): the file\'s path, not its PEM text (mount the key as a file)' })),
  AUTH_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'an https:// URL of the JSON Web Key Set that signs tokens' })),
  AUTH_JWKS_COOLDOWN: Type.Integer({ minimum: 1, maximum: 3600, default: 30, description: 'seconds between JWKS fetches caused by unknown kids, from 1 to 3600' }),
  AUTH_JWKS_MAX_AGE: Type.Integer({ minimum: 10, maximum: 86400, default: 600, description: 'seconds a fetched JWKS is trusted before it is fetched again, from 10 to 86400' }),
  AUTH_INTROSPECTION_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'an https:// RFC 7662 introspection endpoint for opaque tokens' })),
  AUTH_INTROSPECTION_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, description: 'the client id this service authenticates to the introspection endpoint with' })),
  AUTH_INTROSPECTION_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'the client secret for the introspection endpoint' })),
  AUTH_INTROSPECTION_CACHE: Type.Integer({ minimum: 0, maximum: 300, default: 30, description: 'seconds an introspection answer is reused at most (never past exp), from 0 to 300' }),
  AUTH_RESOURCE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+$', description: 'the origin this service is reached at, e.g. https://api.example.com (RFC 9728 resource)' })),
  // Where clients get tokens, named by the oauth2 scheme of the OpenAPI documents.
  AUTH_TOKEN_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'the authorization server\'s token endpoint, e.g. https://auth.example.com/oauth/token' })),
  AUTH_ALLOW_INSECURE_HTTP: Type.Boolean({ default: false, description: 'true or false: accept tokens over plain HTTP from any client (only behind a TLS-terminating network you trust)' }),
  AUTH_CLOCK_TOLERANCE: Type.Integer({ minimum: 0, maximum: 300, default: 5, description: 'seconds of clock skew allowed on exp and nbf, from 0 to 300' }),
  AUTH_QUERY_TOKEN: Type.Boolean({ default: true, description: 'true or false: accept the access_token query parameter' }),
  TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1, pattern: NOT_PEM, description: 'a path to the PEM certificate chain, not its PEM text; with TLS_KEY_FILE the service serves HTTPS' })),
  TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, pattern: NOT_PEM, description: 'a path to the PEM private key for TLS_CERT_FILE, not its PEM text (mount the key as a file)' })),
  HEALTH_CHECK_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 30000, default: 1000, description: 'milliseconds from 10 to 30000' }),
  HEALTH_REFRESH_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 300000, default: 2000, description: 'milliseconds from 100 to 300000' }),
  HEALTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 300000, default: 2000, description: 'milliseconds from 0 to 300000' }),
  LIVENESS_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 5000, description: 'milliseconds from 100 to 600000' }),
  SHED_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({ minimum: 0, maximum: 600000, default: 1000, description: 'milliseconds from 0 (off) to 600000' }),
  SHED_MAX_EVENT_LOOP_UTILIZATION: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'a fraction from 0 (off) to 1' }),
  SHED_MAX_HEAP_USED_BYTES: Type.Integer({ minimum: 0, default: 0, description: 'a byte count, 0 for off' }),
  SHED_MAX_RSS_BYTES: Type.Integer({ minimum: 0, default: 0, description: 'a byte count, 0 for off' }),
  SHED_RETRY_AFTER_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 5, description: 'seconds from 1 to 3600' }),
  // Retry-After of every "try again shortly" 503 (Starting, DatabaseUnavailable, StorageFull, Overloaded, HandlerTimeout,
  // TokenCheckUnavailable, ServiceUnavailable). SHED_RETRY_AFTER_SECONDS, its older name, still sets it.
  RETRY_AFTER_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 5, description: 'seconds from 1 to 3600' }),
  SHUTDOWN_DRAIN_DELAY_MS: Type.Integer({ minimum: 0, maximum: 120000, default: 0, description: 'milliseconds from 0 to 120000' }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 300000, default: 10000, description: 'milliseconds from 100 to 300000' }),
  // Logs during an outage: refused requests (503 problems) are counted and logged once per interval.
  REFUSED_LOG_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 3600000, default: 10000, description: 'milliseconds from 100 to 3600000' }),
  // The management listener (docs/operations.md, "Management listener"): /metrics, the detailed health
  // endpoints and /info without a token, never a business route. Off unless MANAGEMENT_PORT is set.
  MANAGEMENT_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'an integer port from 0 to 65535, other than PORT and GRPC_PORT' })),
  MANAGEMENT_HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'a host name or address to bind the management listener' }),
  GRPC_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'an integer port from 0 to 65535' })),
  // What gRPC health clients may hold open: streams per connection (HTTP/2 SETTINGS) and Watch streams in all.
  GRPC_MAX_CONCURRENT_STREAMS: Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'gRPC streams one connection may have open at once, from 1 to 10000' }),
  GRPC_MAX_WATCHES: Type.Integer({ minimum: 1, maximum: 100000, default: 1000, description: 'gRPC health Watch streams open at once in all, from 1 to 100000' }),
  HEARTBEAT_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'an http:// or https:// URL' })),
  HEARTBEAT_TOKEN: Type.Optional(Type.String({ minLength: 1, description: 'a bearer token with the heartbeat:write scope' })),
  HEARTBEAT_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 3600000, default: 10000, description: 'milliseconds from 100 to 3600000' }),
  HEARTBEAT_TOLERANCE: Type.Number({ minimum: 1, maximum: 100, default: 3, description: 'a multiplier from 1 to 100' }),
  HEARTBEAT_MAX_INSTANCES: Type.Integer({ minimum: 1, maximum: 100000, default: 1000, description: 'worker instances whose heartbeats are kept, from 1 to 100000; a new one past it replaces the longest silent' }),
  HEARTBEAT_MAX_SKEW_MS: Type.Integer({ minimum: 0, maximum: 3600000, default: 30000, description: 'milliseconds from 0 to 3600000' }),
  // Tracing is configured by the standard OTEL_* variables (docs/operations.md, "Tracing"); this one is the service's own.
  TRACE_PROBES: Type.Boolean({ default: false, description: 'true or false: trace /ping and the health probes too (balancers poll them constantly)' }),
  TRACE_HOOKS: Type.Boolean({ default: false, description: 'true or false: a span for each Fastify hook and for the handler, under the request span (costs every request)' }),
  API_VENDOR_NAME: Type.String({
    default: 'recrutamento',
    pattern: '^[a-z0-9]+([.-][a-z0-9]+)*$',
    description: 'the lower-case <name> of the vendor media type application/vnd.<name>-v<major>+json'
  }),
  API_V1_DEPRECATION_DATE: Type.String({
    default: '2026-06-01T00:00:00Z',
    pattern: ISO_DATE,
    description: 'the ISO 8601 date (or date-time) from which API version 1.0 is deprecated'
  }),
  API_V1_SUNSET_DATE: Type.Optional(Type.String({
    pattern: ISO_DATE,
    description: 'the ISO 8601 date (or date-time) after which API version 1.0 may stop answering, no earlier than API_V1_DEPRECATION_DATE'
  }))
})

export type Config = Static<typeof ConfigSchema>

/** Settings renamed since: the older name is still read (names are a contract: add, never remove). */
const OLDER_NAMES: Record<string, string> = {
  RETRY_AFTER_SECONDS: 'SHED_RETRY_AFTER_SECONDS'
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads and validates the settings; the first bad one stops start-up with a one-line message. */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name]
    if (value !== undefined && value !== '') raw[name] = value
  }
  // A setting's older name still works; the newer name wins when both are given.
  for (const [newer, older] of Object.entries(OLDER_NAMES)) {
    if (raw[newer] === undefined && raw[older] !== undefined) raw[newer] = raw[older]
  }
  const config = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw))
  const error = Value.Errors(ConfigSchema, config).First()
  if (error !== undefined) {
    const name = error.path.split('/')[1] ?? '(unknown)'
    throw new ConfigError(`Invalid setting ${shown(name, raw[name])}: expected ${describe(ConfigSchema.properties[name as keyof Config])}`)
  }
  checkVersionDates(config as Config)
  checkUnknownSettings(config as Config, env)
  checkDatabaseChoice(config as Config)
  checkPorts(config as Config)
  return config as Config
}

/** Every name the service reads, older names included. */
export const SETTING_NAMES: readonly string[] = [...Object.keys(ConfigSchema.properties), ...Object.values(OLDER_NAMES)]

/** Production runs on the embedded database only when DATABASE_EMBEDDED says so, never for want of DATABASE_URL. */
function checkDatabaseChoice (config: Config): void {
  if (config.DATABASE_EMBEDDED && config.DATABASE_URL !== undefined) {
    throw new ConfigError('DATABASE_EMBEDDED=true and DATABASE_URL are both set: choose the embedded database or PostgreSQL')
  }
  // The embedded database belongs to one process: an API process would queue deliveries no worker can reach.
  if (config.SERVICE_ROLE !== 'all' && config.DATABASE_URL === undefined) {
    throw new ConfigError(`SERVICE_ROLE=${config.SERVICE_ROLE} needs DATABASE_URL: API and worker processes share a PostgreSQL database; the embedded one runs only SERVICE_ROLE=all`)
  }
  if (config.NODE_ENV === 'production' && config.DATABASE_URL === undefined && !config.DATABASE_EMBEDDED) {
    throw new ConfigError('NODE_ENV=production needs DATABASE_URL, or DATABASE_EMBEDDED=true to run on the embedded database under DATA_DIR')
  }
}

/** The service's listeners each need a port of their own (0, a port the system picks, never clashes). */
function checkPorts (config: Config): void {
  const { PORT, GRPC_PORT, MANAGEMENT_PORT } = config
  if (MANAGEMENT_PORT === undefined || MANAGEMENT_PORT === 0) return
  for (const [name, port] of [['PORT', PORT], ['GRPC_PORT', GRPC_PORT]] as const) {
    if (port === MANAGEMENT_PORT) throw new ConfigError(`MANAGEMENT_PORT=${MANAGEMENT_PORT} is also ${name}: the management listener needs a port of its own`)
  }
}

/** In production, a setting that looks like ours but is not stops start-up unless ALLOW_UNKNOWN_SETTINGS=true. */
function checkUnknownSettings (config: Config, env: Record<string, string | undefined>): void {
  if (config.NODE_ENV !== 'production' || config.ALLOW_UNKNOWN_SETTINGS) return
  const unknown = unknownSettings(env, SETTING_NAMES)
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown settings that look like this service's: ${describeUnknown(unknown)}; correct them, or set ALLOW_UNKNOWN_SETTINGS=true to start anyway`)
  }
}

/** Settings that are valid alone but not together (a sunset before its deprecation). */
function checkVersionDates (config: Config): void {
  try {
    buildVersionTable(config)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

/** `NAME=value` for an error message, or `NAME (value not shown)` for a secret or key material. */
function shown (name: string, value: unknown): string {
  const secret = SECRET_SETTINGS.has(name) || String(value).includes('-----BEGIN ')
  return secret ? `${name} (value not shown)` : `${name}=${JSON.stringify(value)}`
}

function describe (schema: TSchema | undefined): string {
  if (schema === undefined) return 'a known setting'
  if (schema.description !== undefined) return schema.description
  if (Array.isArray(schema.anyOf)) return `one of ${schema.anyOf.map((s: TSchema) => s.const).join(', ')}`
  return schema.type ?? 'a valid value'
}

/** Fastify's trustProxy value for the TRUST_PROXY setting (a number trusts that many hops). */
export function trustProxyOption (value: string): boolean | string[] {
  if (value === 'true') return true
  if (value === 'false') return false
  // Fastify's types omit the hop count that proxy-addr accepts at run time.
  if (/^\d+$/.test(value)) return Number(value) as unknown as boolean
  return value.split(',').map(part => part.trim())
}
