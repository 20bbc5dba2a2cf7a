import type { IncomingMessage } from 'node:http'
import type { ConstraintStrategy, HTTPVersion } from 'find-my-way'
import { createVersionReader, splitVersionSegment, type VersionSelection } from './version-reader.ts'
import type { ApiVersionTable } from './versions.ts'

// Set on the raw request before routing, read by the api-versioning plugin after it.
const kUrlSegment = Symbol('apiVersion.urlSegment')
const kSelection = Symbol('apiVersion.selection')

interface VersionedMessage extends IncomingMessage {
  [kUrlSegment]?: string
  [kSelection]?: VersionSelection
}

/** The version selection of an `/api` request; undefined for every other request. */
export function selectionOf (req: IncomingMessage): VersionSelection | undefined {
  return (req as VersionedMessage)[kSelection]
}

/** True for `/api`, `/api/...` and `/api?...`: the only requests that pay for versioning. */
function isApiUrl (url: string): boolean {
  // Comparing one character first keeps the cost for every other request to a single check.
  if (url.charCodeAt(1) !== 97 /* a */ || !url.startsWith('/api')) return false
  const next = url.charCodeAt(4)
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */
}

/**
 * Fastify's `rewriteUrl`: `/api/v2/x` becomes `/api/x` and the `2` is kept for the constraint.
 * `request.originalUrl` keeps what the client sent, for logs, problems and links.
 */
export function rewriteVersionedUrl (req: IncomingMessage): string {
  const url = req.url ?? '/'
  if (url.charCodeAt(5) !== 118 /* v */ || !isApiUrl(url)) return url
  const split = splitVersionSegment(url)
  if (split === undefined) return url
  ;(req as VersionedMessage)[kUrlSegment] = split.segment
  return split.url
}

/** A constraint value that every versioned route accepts, so a refused request reaches its route's hooks. */
const MATCHES_EVERY_VERSION = '\0matches every version'

export type ApiVersionConstraint = string | readonly string[]

function versionsOf (value: ApiVersionConstraint): readonly string[] {
  return typeof value === 'string' ? [value] : value
}

/** Checks what a route declares in `constraints.apiVersion`: versions of the table, at least one. */
function apiVersionConstraintCheck (table: ApiVersionTable): (value: unknown) => void {
  const supported = table.versions.map(v => v.version)
  return function validate (value) {
    const versions = typeof value === 'string' ? [value] : value
    if (!Array.isArray(versions) || versions.length === 0 || !versions.every(v => typeof v === 'string')) {
      throw new Error(`constraints.apiVersion must be a version or a non-empty list of versions, got ${JSON.stringify(value)}`)
    }
    for (const version of versions) {
      if (!supported.includes(version)) {
        throw new Error(`constraints.apiVersion names ${JSON.stringify(version)}; the versions are ${supported.join(', ')}`)
      }
    }
  }
}

/**
 * The `apiVersion` route constraint: a route declares the version(s) it serves, once, at its
 * version-less path; the request's version is derived once per `/api` request from the URL
 * segment, the `x-api-version` header and the media types, and is undefined for other requests.
 */
export function apiVersionStrategy (table: ApiVersionTable, vendorName: string): ConstraintStrategy<HTTPVersion.V1, string> {
  const readVersion = createVersionReader({ table, vendorName })
  return {
    name: 'apiVersion',
    mustMatchWhenDerived: false,
    validate: apiVersionConstraintCheck(table),
    storage () {
      // find-my-way keeps, per path, a bit mask of the handlers that accept a value.
      const handlers = new Map<string, number>()
      let everyHandler = 0
      return {
        // Typed as strings by find-my-way; a route's value may also be a list of versions.
        get (value: string) {
          // Read as a list (while find-my-way builds the store) it holds nothing yet: set() adds per version.
          return (typeof value === 'string' ? (value === MATCHES_EVERY_VERSION ? everyHandler : handlers.get(value)) : 0) as never
        },
        set (value: string, mask: unknown) {
          for (const version of versionsOf(value as ApiVersionConstraint)) handlers.set(version, (handlers.get(version) ?? 0) | (mask as number))
          everyHandler |= mask as number
        }
      }
    },
    deriveConstraint (req: IncomingMessage): string {
      const url = req.url ?? '/'
      if (!isApiUrl(url)) return undefined as unknown as string
      const message = req as VersionedMessage
      const selection = readVersion(req, message[kUrlSegment])
      message[kSelection] = selection
      return selection.version?.version ?? MATCHES_EVERY_VERSION
    }
  }
}
