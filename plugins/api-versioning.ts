import fp from 'fastify-plugin'
import FindMyWay from 'find-my-way'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { exactJsonParser } from '../src/http/input/json-body.ts'
import { problem } from '../src/http/problems/error-catalogue.ts'
import { addRouteHook } from '../src/http/policy/route-hooks.ts'
import { routePolicy } from '../src/http/policy/route-policy.ts'
import { versionedHref } from '../src/versioning/href.ts'
import { isApiPath, routeVersions } from '../src/versioning/route-versions.ts'
import { selectionOf } from '../src/versioning/routing.ts'
import type { AppOptions } from '../src/app.ts'
import { buildVersionTable, type ApiVersion, type ApiVersionTable } from '../src/versioning/versions.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The API versions with their dates: the one source for headers, `/api/versions` and the documents. */
    apiVersions: ApiVersionTable
  }
  interface FastifyRequest {
    /** The version serving an `/api` request (`1.0`, `2.0`); undefined outside `/api`. */
    readonly apiVersion: string | undefined
    /** `/api/v{served version}` + path: a link to another resource in the version being served. */
    apiHref: (path: string) => string
  }
}

/** Which versions serve each method of each `/api` path, to tell "not in this version" from "nowhere". */
function createVersionedRouteTable () {
  const router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true })
  const byPath = new Map<string, Map<string, Set<string> | 'neutral'>>()

  return {
    add (method: string, path: string, versions: readonly string[] | undefined) {
      let methods = byPath.get(path)
      if (methods === undefined) {
        methods = new Map()
        byPath.set(path, methods)
        router.on('GET', path, () => {}, methods)
      }
      const known = methods.get(method)
      const where = `${method} ${path}`
      if (versions === undefined) {
        if (known !== undefined) throw new Error(`Route ${where} is version-neutral but is also declared for versions ${[...(known === 'neutral' ? [] : known)].join(', ')}`)
        methods.set(method, 'neutral')
        return
      }
      if (known === 'neutral') throw new Error(`Route ${where} is declared for ${versions.join(', ')} and also as version-neutral`)
      const served = known ?? new Set<string>()
      for (const version of versions) {
        if (served.has(version)) throw new Error(`Route ${where} is declared twice for API version ${version}`)
        served.add(version)
      }
      methods.set(method, served)
    },
    versionsAt (method: string, path: string): Set<string> | 'neutral' | undefined {
      const methods = router.find('GET', path)?.store as Map<string, Set<string> | 'neutral'> | undefined
      return methods?.get(method)
    }
  }
}

function pathOf (url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/** The deprecation headers of a version, built once (RFC 9745 Deprecation, RFC 8594 Sunset, Link). */
function deprecationHeaders (version: ApiVersion, current: ApiVersion): Record<string, string> | undefined {
  if (version.deprecatedAt === undefined) return undefined
  const docs = `/docs/${current.group}`
  const links = [`<${docs}>; rel="deprecation"; type="text/html"`]
  const headers: Record<string, string> = { deprecation: `@${Math.floor(version.deprecatedAt.getTime() / 1000)}` }
  if (version.sunsetAt !== undefined) {
    headers.sunset = version.sunsetAt.toUTCString()
    links.push(`<${docs}>; rel="sunset"; type="text/html"`)
  }
  headers.link = links.join(', ')
  return headers
}

const VARY = 'Accept, x-api-version'

async function apiVersioning (fastify: FastifyInstance, opts: Pick<AppOptions, 'versionRows'>): Promise<void> {
  const table = buildVersionTable(fastify.config, opts.versionRows)
  const vendorName = fastify.config.API_VENDOR_NAME
  const routes = createVersionedRouteTable()
  const deprecation = new Map(table.versions.map(v => [v.version, deprecationHeaders(v, table.current)]))

  // A body sent as the vendor media type is JSON, parsed like application/json.
  const escapedVendor = vendorName.replace(/[.]/g, '\\.')
  fastify.addContentTypeParser(new RegExp(`^application/vnd\\.${escapedVendor}-v[0-9.]+\\+json$`), { parseAs: 'buffer' }, exactJsonParser(fastify))

  fastify.decorate('apiVersions', table)
  fastify.decorateRequest('apiVersion', {
    getter (this: FastifyRequest) {
      return selectionOf(this.raw)?.version?.version
    }
  })
  fastify.decorateRequest('apiHref', function (this: FastifyRequest, path: string) {
    return versionedHref(this.apiVersion ?? table.defaultVersion.version, path)
  })

  fastify.routeSteps.add('api-versioning', function versionRoute (this: FastifyInstance, route: RouteOptions) {
    if (!isApiPath(route.url)) {
      if (routeVersions(route) !== undefined) throw new Error(`Route ${route.url} declares an API version but is not under /api`)
      return
    }
    const versions = routeVersions(route)
    if (versions === undefined && !routePolicy(route, this).versionNeutral) {
      throw new Error(`Route ${route.url} declares no API version: add constraints: { apiVersion: '2.0' } ` +
        '(or a list of versions), or config: { apiVersionNeutral: true } for a route every version serves unchanged')
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) routes.add(method, route.url, versions)
    addRouteHook(route, 'onRequest', refuseVersion)
    addRouteHook(route, 'onSend', reportVersion)
  })

  // Requests under /api that no route matches get the same hooks, around the usual 404/405 answer.
  // Elsewhere (/ping, the probes) no versioning code runs at all.
  await fastify.register(async function unroutedApiRequests (api) {
    api.addHook('onRequest', refuseVersion)
    api.addHook('onSend', reportVersion)
    api.setNotFoundHandler(fastify.answerUnrouted)
  }, { prefix: '/api' })

  // Refusals happen here, after routing and before authentication or validation.
  function refuseVersion (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    const selection = selectionOf(request.raw)
    if (selection === undefined) return done()
    if (!request.is404) return done(selection.problem)
    if (request.method === 'OPTIONS') return done()
    // No route for this version: a path and method that other versions serve is a version problem, not a 404.
    const path = pathOf(request.url)
    const served = routes.versionsAt(request.method, path)
    if (served === undefined || served === 'neutral') return done()
    if (selection.problem !== undefined) return done(selection.problem)
    const available = [...served].sort()
    done(problem('UnsupportedApiVersion', {
      detail: `${request.method} ${pathOf(request.originalUrl)} is not available in API version ${selection.version!.version}; it is available in ${available.join(', ')}.`,
      requestedVersion: selection.version!.version,
      supportedVersions: available
    }))
  }

  function reportVersion (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
    const selection = selectionOf(request.raw)
    if (selection === undefined) return done(null, payload)
    reply.header('api-supported-versions', table.supportedHeader)
    if (table.deprecatedHeader !== '') reply.header('api-deprecated-versions', table.deprecatedHeader)
    const vary = reply.getHeader('vary')
    reply.header('vary', vary === undefined ? VARY : `${String(vary)}, ${VARY}`)
    const version = selection.version
    if (version !== undefined) {
      reply.header('x-api-version', version.version)
      const headers = deprecation.get(version.version)
      if (headers !== undefined) reply.headers(headers)
      if (selection.vendor && String(reply.getHeader('content-type')).startsWith('application/json')) {
        reply.header('content-type', `application/vnd.${vendorName}-${version.group}+json; charset=utf-8`)
      }
    }
    done(null, payload)
  }
}

export default fp(apiVersioning, { name: 'api-versioning', fastify: '5.x', dependencies: ['config', 'problem-details', 'http-conventions', 'route-hooks'] })
