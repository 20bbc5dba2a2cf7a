// Command probe (docs/operations.md, "Command probe"): `npm run healthcheck -- [live|ready|startup] [--url URL] [--timeout MS]`,
// or `node dist/src/cli/healthcheck.js live` in a container's HEALTHCHECK. Exit codes: 0 healthy (HTTP 200),
// 1 unhealthy or unreachable, 2 usage error (unknown probe, bad flag or setting).
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.ts'

const PROBES = ['live', 'ready', 'startup'] as const
type Probe = typeof PROBES[number]

const HEALTHY = 0
const UNHEALTHY = 1
const USAGE = 2

class UsageError extends Error {}

interface Invocation {
  url: URL
  timeoutMs: number
}

/** Where to connect when the server binds a wildcard address. */
function reachableHost (host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::' || host === '[::]') return '[::1]'
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

function parse (argv: string[]): Invocation {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { url: { type: 'string' }, timeout: { type: 'string' } } })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { positionals, values } = parsed
  if (positionals.length > 1) throw new UsageError('name one probe at most')
  const probe = (positionals[0] ?? 'live') as Probe
  if (!PROBES.includes(probe)) throw new UsageError(`unknown probe ${positionals[0]}; expected one of ${PROBES.join(', ')}`)
  const timeoutMs = values.timeout === undefined ? 2000 : Number(values.timeout)
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw new UsageError('--timeout takes milliseconds from 1 to 60000')

  let base: URL
  if (values.url !== undefined) {
    try {
      base = new URL(values.url)
    } catch {
      throw new UsageError(`--url ${values.url} is not a URL`)
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UsageError('--url must be http:// or https://')
  } else {
    let config
    try {
      config = loadConfig()
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message)
      throw error
    }
    const scheme = config.TLS_CERT_FILE !== undefined ? 'https' : 'http'
    base = new URL(`${scheme}://${reachableHost(config.HOST)}:${config.PORT}`)
  }
  return { url: new URL(`/health/${probe}`, base), timeoutMs }
}

function probe ({ url, timeoutMs }: Invocation): Promise<{ code: number, line: string }> {
  return new Promise(resolve => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    // The probe calls its own instance: a self-signed certificate is fine here.
    const req = send(url, { method: 'GET', timeout: timeoutMs, rejectUnauthorized: false, headers: { accept: 'application/json' } }, res => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', chunk => { if (body.length < 4096) body += chunk })
      res.on('end', () => {
        let status = ''
        try { status = String((JSON.parse(body) as { status?: unknown }).status ?? '') } catch {}
        resolve({ code: res.statusCode === 200 ? HEALTHY : UNHEALTHY, line: `${url.pathname}: ${res.statusCode ?? '?'} ${status}`.trim() })
      })
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', error => {
      const cause = (error as NodeJS.ErrnoException).code ?? error.message
      resolve({ code: UNHEALTHY, line: `${url.pathname}: unreachable (${cause})` })
    })
    req.end()
  })
}

async function main (): Promise<number> {
  let invocation: Invocation
  try {
    invocation = parse(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`healthcheck: ${error.message}\nusage: healthcheck [live|ready|startup] [--url http://host:port] [--timeout ms]\n`)
    return USAGE
  }
  const { code, line } = await probe(invocation)
  process.stdout.write(`${line}\n`)
  return code
}

process.exitCode = await main()
