// A typed client: openapi-fetch over the types generated from each OpenAPI document. Each client
// sends the bearer token and names its API version on every request, retries what is safe to retry
// (retry.ts, resendable.ts), and walks collections and the event feed by their links.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch'
import { feedFollower, type FollowFeed } from './feed.ts'
import { pageReader, paginator, type Paginate } from './paging.ts'
import { resendable } from './resendable.ts'
import { retryingFetch, type RetryOptions } from './retry.ts'
import type { OpsPaths, VersionPaths } from './generated/versions.ts'

export interface ClientOptions extends RetryOptions {
  /** Where the service is, e.g. `https://api.example.com`. */
  baseUrl: string
  // `| undefined`: `token: process.env.TOKEN` compiles under exactOptionalPropertyTypes too.
  /** The OAuth 2.0 access token, or a function that returns a current one; none for public operations. */
  token?: string | (() => string | Promise<string>) | undefined
  /** A fetch of your own (a proxy agent, a test recorder); the global fetch by default. */
  fetch?: ((request: Request) => Promise<Response>) | undefined
}

/** openapi-fetch's client, and every page of a collection or the feed. */
export interface ApiClient<Paths extends {}> extends Client<Paths> {
  /** `for await (const item of api.paginate('/api/v2/vagas', init))`: every item, following the `next` links. */
  paginate: Paginate<Paths>
  /** `for await (const { event, position } of api.followFeed('/api/v2/eventos', { from }))`: the feed, polled for ever. */
  followFeed: FollowFeed<Paths>
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
export function versionClient<Paths extends object> (options: ClientOptions, version: string | undefined): ApiClient<Paths> {
  const send = options.fetch ?? (async (request: Request) => await fetch(request))
  const api = createFetchClient<Paths>({ baseUrl: options.baseUrl, fetch: retryingFetch(send, options) })
  if (options.token !== undefined) api.use(bearerToken(options.token))
  if (version !== undefined) api.use(apiVersion(version))
  api.use(resendable)
  const read = pageReader(api, options.baseUrl)
  return Object.assign(api, { paginate: paginator<Paths>(read), followFeed: feedFollower<Paths>(read) })
}

/** Any API version of the service (`API_VERSIONS`): `createClient('2.0', options)` calls `/api/v2/...`. */
export function createClient<Version extends keyof VersionPaths> (version: Version, options: ClientOptions): ApiClient<VersionPaths[Version]> {
  return versionClient<VersionPaths[Version]>(options, version)
}

/** The version-neutral operations: `/ping`, `/health/*`, `/metrics`, `/heartbeats`. */
export function createOpsClient (options: ClientOptions): ApiClient<OpsPaths> {
  return versionClient<OpsPaths>(options, undefined)
}
