import t from 'tap'
import { loadConfig, SETTING_NAMES } from '../src/config.ts'
import { API_VERSION_ROWS } from '../src/versioning/versions.ts'

t.test('RETRY_AFTER_SECONDS: 5 by default, its older name SHED_RETRY_AFTER_SECONDS still sets it, the newer name wins', async t => {
  t.equal(loadConfig({}).RETRY_AFTER_SECONDS, 5)
  t.equal(loadConfig({ RETRY_AFTER_SECONDS: '30' }).RETRY_AFTER_SECONDS, 30)
  t.equal(loadConfig({ SHED_RETRY_AFTER_SECONDS: '7' }).RETRY_AFTER_SECONDS, 7)
  t.equal(loadConfig({ SHED_RETRY_AFTER_SECONDS: '7', RETRY_AFTER_SECONDS: '12' }).RETRY_AFTER_SECONDS, 12)
  t.throws(() => loadConfig({ RETRY_AFTER_SECONDS: '0' }), /RETRY_AFTER_SECONDS/)
  t.throws(() => loadConfig({ SHED_RETRY_AFTER_SECONDS: 'soon' }), /RETRY_AFTER_SECONDS/)
})

t.test('production runs on the embedded database only when DATABASE_EMBEDDED=true says so', async t => {
  const production = { NODE_ENV: 'production' }
  t.throws(() => loadConfig(production), { name: 'ConfigError', message: 'NODE_ENV=production needs DATABASE_URL, or DATABASE_EMBEDDED=true to run on the embedded database under DATA_DIR' })
  t.match(loadConfig({ ...production, DATABASE_EMBEDDED: 'true' }), { DATABASE_EMBEDDED: true, DATABASE_URL: undefined })
  t.match(loadConfig({ ...production, DATABASE_URL: 'postgres://db/recrutamento' }), { DATABASE_EMBEDDED: false })
  t.throws(() => loadConfig({ DATABASE_EMBEDDED: 'true', DATABASE_URL: 'postgres://db/recrutamento' }), /both set/)
  t.equal(loadConfig({}).DATABASE_URL, undefined, 'in development the embedded database is the default')
})

t.test('in production, a setting that looks like one of ours but is not stops start-up, naming the one meant', async t => {
  const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/recrutamento' }
  t.throws(() => loadConfig({ NODE_ENV: 'production', DATABSE_URL: 'postgres://db/recrutamento' }), {
    name: 'ConfigError',
    message: "Unknown settings that look like this service's: DATABSE_URL (DATABASE_URL?); correct them, or set ALLOW_UNKNOWN_SETTINGS=true to start anyway"
  })
  t.throws(() => loadConfig({ ...production, AUTH_JWT_SECRT: 'x', OTEL_EXPORTER_OTLP_ENDPOIT: 'http://otel:4318', REDIS_PASSWORD: 'x' }),
    /AUTH_JWT_SECRT \(AUTH_JWT_SECRET\?\), OTEL_EXPORTER_OTLP_ENDPOIT \(OTEL_EXPORTER_OTLP_ENDPOINT\?\), REDIS_PASSWORD;/)
  t.match(loadConfig({ ...production, REDIS_PASSWORD: 'x', ALLOW_UNKNOWN_SETTINGS: 'true' }), { ALLOW_UNKNOWN_SETTINGS: true }, 'the escape hatch')
  const unrelated = { HOME: '/root', HOSTNAME: 'pod-1', PATH: '/usr/bin', NODE_OPTIONS: '--enable-source-maps', TEST_DATABASE_URL: 'postgres://x', OTEL_EXPORTER_JAEGER_ENDPOINT: 'x', GRPC_TRACE: 'all', LANG: 'C.UTF-8', SSL_CERT_FILE: '/etc/ssl/cert.pem' }
  // What Kubernetes sets for services named redis and auth in the namespace.
  const serviceLinks = { REDIS_SERVICE_HOST: '10.0.0.7', REDIS_SERVICE_PORT: '6379', REDIS_PORT: 'tcp://10.0.0.7:6379', REDIS_PORT_6379_TCP: 'tcp://10.0.0.7:6379', REDIS_PORT_6379_TCP_PROTO: 'tcp', REDIS_PORT_6379_TCP_PORT: '6379', REDIS_PORT_6379_TCP_ADDR: '10.0.0.7', AUTH_SERVICE_HOST: '10.0.0.8', AUTH_SERVICE_PORT_HTTP: '80' }
  t.match(loadConfig({ ...production, ...serviceLinks }), { NODE_ENV: 'production' }, 'nor do Kubernetes service links')
  t.throws(() => loadConfig({ ...production, REDIS_PORT: '6380x' }), /REDIS_PORT;/, 'a REDIS_PORT that is no service link is a setting that does not exist')
  t.match(loadConfig({ ...production, ...unrelated }), { NODE_ENV: 'production' }, 'other programs\' variables pass')
  t.match(loadConfig({ DATABSE_URL: 'postgres://db/recrutamento' }), { NODE_ENV: 'development' }, 'elsewhere they are a warning at start, not a refusal')
})

t.test('a key pasted where its file path belongs is refused, and no secret is ever quoted in the message', async t => {
  const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n'
  for (const name of ['AUTH_PUBLIC_KEY_FILE', 'TLS_KEY_FILE', 'TLS_CERT_FILE']) {
    const error = t.throws(() => loadConfig({ [name]: pem })) as Error
    t.match(error.message, new RegExp(`^Invalid setting ${name} \\(value not shown\\): expected a path to .*not its PEM text`))
    t.notMatch(error.message, /MIGHAgEA/, 'the key is not in the message')
  }
  t.equal(loadConfig({ AUTH_PUBLIC_KEY_FILE: '/run/secrets/jwt.pem', AUTH_JWT_SECRET: '' }).AUTH_PUBLIC_KEY_FILE, '/run/secrets/jwt.pem')
  const short = t.throws(() => loadConfig({ AUTH_JWT_SECRET: 'hunter2' })) as Error
  t.equal(short.message, 'Invalid setting AUTH_JWT_SECRET (value not shown): expected an HS256 shared secret of at least 32 characters')
  const url = t.throws(() => loadConfig({ DATABASE_URL: 'mysql://app:s3cret@db/x' })) as Error
  t.notMatch(url.message, /s3cret/)
})

t.test('every date setting the version table names is a setting of the service', async t => {
  const named = API_VERSION_ROWS.flatMap(row => [row.deprecationSetting, row.sunsetSetting]).filter(name => name !== undefined)
  t.ok(named.length > 0)
  for (const name of named) t.ok(SETTING_NAMES.includes(name), `${name} is read by src/config.ts`)
})

t.test('SERVICE_ROLE: all by default, api or worker when set, anything else refused in one line', async t => {
  t.equal(loadConfig({}).SERVICE_ROLE, 'all')
  t.equal(loadConfig({ SERVICE_ROLE: 'api', DATABASE_URL: 'postgres://db/recrutamento' }).SERVICE_ROLE, 'api')
  t.equal(loadConfig({ SERVICE_ROLE: 'worker', DATABASE_URL: 'postgres://db/recrutamento' }).SERVICE_ROLE, 'worker')
  for (const role of ['api', 'worker']) {
    t.throws(() => loadConfig({ SERVICE_ROLE: role }), { message: `SERVICE_ROLE=${role} needs DATABASE_URL: API and worker processes share a PostgreSQL database; the embedded one runs only SERVICE_ROLE=all` }, `${role} on the embedded database is refused`)
  }
  t.throws(() => loadConfig({ SERVICE_ROLE: 'both' }), {
    name: 'ConfigError',
    message: /^Invalid setting SERVICE_ROLE="both": expected all, api or worker: [^\n]+$/
  })
})
