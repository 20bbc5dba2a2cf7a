// A thin typed client: openapi-fetch over the types generated from each OpenAPI document. Each
// client sends the bearer token and names its API version on every request.
import createClient, { type Client, type Middleware } from 'openapi-fetch'
import type { paths as OpsPaths } from './generated/ops.js'
import type { paths as V1Paths } from './generated/v1.js'
import type { paths as V2Paths } from './generated/v2.js'

export type { OpsPaths, V1Paths, V2Paths }

export interface ClientOptions {
  /** Where the service is, e.g. `https://api.example.com`. */
  baseUrl: string
  // `| undefined`: `token: process.env.TOKEN` compiles under exactOptionalPropertyTypes too.
  /** The OAuth 2.0 access token, or a function that returns a current one; none for public operations. */
  token?: string | (() => string | Promise<string>) | undefined
  /** A fetch of your own (a proxy agent, a test recorder); the global fetch by default. */
  fetch?: ((request: Request) => Promise<Response>) | undefined
}

function bearerToken (token: NonNullable<ClientOptions['token']>): Middleware {
  return {
    async onRequest ({ request }) {
      request.headers.set('authorization', `Bearer ${typeof token === 'function' ? await token() : token}`)
      return request
    }
  }
}

// The paths already carry the version (`/api/v2/...`); the header says the same for proxies and logs.
function apiVersion (version: string): Middleware {
  return {
    onRequest ({ request }) {
      request.headers.set('x-api-version', version)
      return request
    }
  }
}

function client<Paths extends object> (options: ClientOptions, version: string | undefined): Client<Paths> {
  const api = createClient<Paths>({ baseUrl: options.baseUrl, ...(options.fetch !== undefined && { fetch: options.fetch }) })
  if (options.token !== undefined) api.use(bearerToken(options.token))
  if (version !== undefined) api.use(apiVersion(version))
  return api
}

/** API version 2.0: `/api/v2/...`. */
export function createV2Client (options: ClientOptions): Client<V2Paths> {
  return client<V2Paths>(options, '2.0')
}

/** API version 1.0 (deprecated): `/api/v1/...`. */
export function createV1Client (options: ClientOptions): Client<V1Paths> {
  return client<V1Paths>(options, '1.0')
}

/** The version-neutral operations: `/ping`, `/health/*`, `/metrics`, `/heartbeats`. */
export function createOpsClient (options: ClientOptions): Client<OpsPaths> {
  return client<OpsPaths>(options, undefined)
}
