import type { IncomingMessage } from 'node:http'
import type { Problem } from '../http/problems/problem.ts'
import { problem } from '../http/problems/error-catalogue.ts'
import type { ApiVersion, ApiVersionTable } from './versions.ts'

/** Where a request named a version, as the problems report it. */
export type VersionSource = 'url-segment' | 'x-api-version-header' | 'accept-parameter' | 'accept-vendor-media-type' | 'content-type-parameter' | 'content-type-vendor-media-type'

export interface NamedVersion {
  source: VersionSource
  value: string
}

/** What a request asked for: the version it is served, or the problem that refuses it. */
export interface VersionSelection {
  /** Undefined when the request is refused. */
  version: ApiVersion | undefined
  problem: Problem | undefined
  /** The request asked for the vendor media type: a JSON answer carries it as Content-Type. */
  vendor: boolean
  /** A version named with no matching route: the problem a miss answers instead of 404. */
  named: boolean
}

const LABEL = /^(\d{1,6})(?:\.(\d{1,6}))?$/
// `v` and a digit: `/api/vagas` is a resource, `/api/v2` and `/api/v2.0` are versions.
const URL_SEGMENT = /^\/api\/v(\d[^/?#]*)/

/** `2` and `2.0` are both 2.0 (a major alone means major.0); anything else is malformed. */
export function normalizeVersion (raw: string): string | undefined {
  const match = LABEL.exec(raw)
  if (match === null) return undefined
  return `${Number(match[1])}.${Number(match[2] ?? '0')}`
}

/** Client text in a problem: short and printable. */
function quoted (value: string): string {
  const safe = value.replace(/[^\x20-\x7e]/g, '?')
  return JSON.stringify(safe.length > 40 ? safe.slice(0, 40) + '...' : safe)
}

const PARAMETER = 'x-api-version'

/** Every `x-api-version=` media type parameter in a header holding one or more media types. */
function mediaTypeParameters (header: string, source: VersionSource, into: NamedVersion[]): void {
  for (const mediaType of header.split(',')) {
    const parameters = mediaType.split(';')
    for (let i = 1; i < parameters.length; i++) {
      const parameter = parameters[i]!
      const equals = parameter.indexOf('=')
      if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== PARAMETER) continue
      let value = parameter.slice(equals + 1).trim()
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
      into.push({ source, value })
    }
  }
}

export interface VersionReaderOptions {
  table: ApiVersionTable
  /** The `<name>` of `application/vnd.<name>-v<major>+json`. */
  vendorName: string
}

export type VersionReader = (req: IncomingMessage, urlSegment: string | undefined) => VersionSelection

/** Derives the version of a request from all four ways at once; conflicts and bad labels become problems. */
export function createVersionReader ({ table, vendorName }: VersionReaderOptions): VersionReader {
  const vendorPrefix = `application/vnd.${vendorName.toLowerCase()}-v`
  const vendorMediaType = new RegExp(`application/vnd\\.${vendorName.toLowerCase().replace(/[.]/g, '\\.')}-v([^+;,\\s]*)\\+json`, 'g')
  const supported = table.versions.map(v => v.version)
  const defaultSelection: VersionSelection = { version: table.defaultVersion, problem: undefined, vendor: false, named: false }

  function named (req: IncomingMessage, urlSegment: string | undefined): NamedVersion[] | undefined {
    let found: NamedVersion[] | undefined
    if (urlSegment !== undefined) (found ??= []).push({ source: 'url-segment', value: urlSegment })
    const header = req.headers[PARAMETER]
    if (header !== undefined) {
      const values = Array.isArray(header) ? header.join(',') : header
      for (const value of values.split(',')) (found ??= []).push({ source: 'x-api-version-header', value: value.trim() })
    }
    const accept = req.headers.accept
    if (accept !== undefined) {
      const lower = accept.toLowerCase()
      if (lower.includes(PARAMETER)) mediaTypeParameters(accept, 'accept-parameter', found ??= [])
      if (lower.includes(vendorPrefix)) {
        for (const match of lower.matchAll(vendorMediaType)) (found ??= []).push({ source: 'accept-vendor-media-type', value: match[1]! })
      }
    }
    const contentType = req.headers['content-type']
    if (contentType !== undefined) {
      const lower = contentType.toLowerCase()
      if (lower.includes(PARAMETER)) mediaTypeParameters(contentType, 'content-type-parameter', found ??= [])
      if (lower.includes(vendorPrefix)) {
        for (const match of lower.matchAll(vendorMediaType)) (found ??= []).push({ source: 'content-type-vendor-media-type', value: match[1]! })
      }
    }
    return found
  }

  // The usual answer, one supported version named one way, is built once per version and reused.
  const accepted = new Map(table.versions.flatMap(version => [false, true].map(vendor =>
    [`${version.version} ${vendor}`, { version, problem: undefined, vendor, named: true } satisfies VersionSelection])))

  return function readVersion (req, urlSegment) {
    const names = named(req, urlSegment)
    if (names === undefined) return defaultSelection
    const vendor = names.some(name => name.source === 'accept-vendor-media-type')
    if (names.length === 1) {
      const selection = accepted.get(`${normalizeVersion(names[0]!.value)} ${vendor}`)
      if (selection !== undefined) return selection
    }

    const malformed = names.filter(name => normalizeVersion(name.value) === undefined)
    if (malformed.length > 0) {
      return refused(problem('InvalidApiVersion', {
        detail: `${malformed.map(name => `${quoted(name.value)} (${name.source})`).join(', ')} is not an API version; versions look like 2.0 or 2.`,
        sources: malformed,
        supportedVersions: supported
      }), vendor)
    }

    const distinct = new Set(names.map(name => normalizeVersion(name.value)!))
    if (distinct.size > 1) {
      return refused(problem('AmbiguousApiVersion', {
        detail: `The request names different API versions: ${names.map(name => `${normalizeVersion(name.value)} (${name.source})`).join(', ')}; name one.`,
        sources: names.map(name => ({ source: name.source, value: normalizeVersion(name.value) })),
        supportedVersions: supported
      }), vendor)
    }

    const label = distinct.values().next().value!
    const version = table.byVersion.get(label)
    if (version === undefined) {
      return refused(problem('UnsupportedApiVersion', {
        detail: `API version ${label} is not supported; the supported versions are ${supported.join(', ')}.`,
        requestedVersion: label,
        supportedVersions: supported
      }), vendor)
    }
    return accepted.get(`${version.version} ${vendor}`)!
  }
}

function refused (problem: Problem, vendor: boolean): VersionSelection {
  return { version: undefined, problem, vendor, named: true }
}

/**
 * The version named by a `/api/v{version}/...` URL, and the URL with the segment removed, so one
 * route declared at `/api/...` serves every version. Undefined when the URL has no such segment.
 */
export function splitVersionSegment (url: string): { segment: string, url: string } | undefined {
  const match = URL_SEGMENT.exec(url)
  if (match === null) return undefined
  return { segment: match[1]!, url: '/api' + url.slice(match[0].length) }
}
