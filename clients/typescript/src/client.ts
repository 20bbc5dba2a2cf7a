// A thin typed client: openapi-fetch over the types generated from each OpenAPI document. Each
// client sends the bearer token and names its API version on every request.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch'
import type { OpsPaths, VersionPaths } from './generated/versions.js'

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

/** A client of one document: a version's when `version` is given, else the operations'. */
export function versionClient<Paths extends object> (options: ClientOptions, version: string | undefined): Client<Paths> {
  const api = createFetchClient<Paths>({ baseUrl: options.baseUrl, ...(options.fetch !== undefined && { fetch: options.fetch }) })
  if (options.token !== undefined) api.use(bearerToken(options.token))
  if (version !== undefined) api.use(apiVersion(version))
  return api
}

/** Any API version of the service (`API_VERSIONS`): `createClient('2.0', options)` calls `/api/v2/...`. */
export function createClient<Version extends keyof VersionPaths> (version: Version, options: ClientOptions): Client<VersionPaths[Version]> {
  return versionClient<VersionPaths[Version]>(options, version)
}

/** The version-neutral operations: `/ping`, `/health/*`, `/metrics`, `/heartbeats`. */
export function createOpsClient (options: ClientOptions): Client<OpsPaths> {
  return versionClient<OpsPaths>(options, undefined)
}
