// npm run token -- --scope "vagas:read vagas:write" --ttl 15m
// Prints an access token that the service started with the same settings accepts: signed with
// AUTH_JWT_SECRET, or with the development key under DATA_DIR (created here if the service has not yet).
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createSigner } from 'fast-jwt'
import { ConfigError, loadConfig, type Config } from '../config.ts'
import { audienceList } from '../auth/claims.ts'
import { loadOrCreateDevSecret } from '../auth/dev-key.ts'

const USAGE = `usage: npm run token -- [--scope "a:read b:write"] [--ttl 15m] [--sub developer] [--jti id]
  --ttl  lifetime: a number of seconds, or with a unit s, m, h (at most 24h); default 15m`

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 }

/** Seconds in a lifetime such as 900, 90s, 15m or 2h. */
export function parseTtl (text: string): number {
  const match = /^(\d+)([smh]?)$/.exec(text.trim())
  if (match === null) throw new ConfigError(`--ttl ${JSON.stringify(text)}: expected seconds or a number with s, m or h`)
  const seconds = Number(match[1]) * UNITS[match[2] || 's']!
  if (seconds < 1 || seconds > 86_400) throw new ConfigError('--ttl must be between 1 second and 24 hours')
  return seconds
}

function signingSecret (config: Config): string {
  if (config.AUTH_JWT_SECRET !== undefined) return config.AUTH_JWT_SECRET
  if (config.AUTH_PUBLIC_KEY_FILE !== undefined || config.AUTH_JWKS_URL !== undefined || config.AUTH_INTROSPECTION_URL !== undefined) {
    throw new ConfigError('This service accepts tokens from its authorization server (AUTH_PUBLIC_KEY_FILE, AUTH_JWKS_URL or AUTH_INTROSPECTION_URL): get a token there.')
  }
  if (config.NODE_ENV === 'production') throw new ConfigError('No AUTH_JWT_SECRET is set, and NODE_ENV=production never uses a development key.')
  return loadOrCreateDevSecret(config.DATA_DIR).secret
}

export function mintDevelopmentToken (config: Config, options: { scope: string, ttlSeconds: number, sub: string, jti: string }): string {
  const audiences = audienceList(config.AUTH_AUDIENCE)
  const sign = createSigner({
    key: signingSecret(config),
    algorithm: 'HS256',
    expiresIn: options.ttlSeconds * 1000,
    header: { alg: 'HS256', typ: 'at+jwt' },
    ...(config.AUTH_ISSUER !== undefined && { iss: config.AUTH_ISSUER }),
    ...(audiences !== undefined && { aud: audiences.length === 1 ? audiences[0] : audiences }),
    sub: options.sub,
    jti: options.jti
  })
  return sign({ scope: options.scope, client_id: 'token-cli' })
}

function main (): void {
  try {
    const { values } = parseArgs({
      options: {
        scope: { type: 'string', default: '' },
        ttl: { type: 'string', default: '15m' },
        sub: { type: 'string', default: 'developer' },
        jti: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    })
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`)
      return
    }
    const config = loadConfig()
    const token = mintDevelopmentToken(config, { scope: values.scope, ttlSeconds: parseTtl(values.ttl), sub: values.sub, jti: values.jti ?? randomUUID() })
    process.stdout.write(`${token}\n`)
  } catch (error) {
    const message = error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
      ? (error as Error).message
      : 'could not create a token'
    process.stderr.write(`${message}\n${USAGE}\n`)
    process.exitCode = 1
  }
}

main()
