// Where a webhook's host name leads, checked when the webhook is registered and again on every
// connection a delivery makes: a name may resolve elsewhere by then (DNS rebinding).
import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import { isIP } from 'node:net'
import { isPublicAddress } from './target-address.ts'

/** The target is not on the public internet, or its name does not resolve. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError'
}

/** A URL's host without the brackets of an IPv6 literal. */
export function targetHost (url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
}

function refusedAmong (addresses: readonly LookupAddress[]): string | undefined {
  return addresses.find(({ address }) => !isPublicAddress(address))?.address
}

/** Every address the host has, refused when any is not public (a connection may take any of them). */
export async function resolvePublicAddresses (host: string): Promise<LookupAddress[]> {
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) throw new TargetRefusedError(`${host} is not a public address`)
    return [{ address: host, family: isIP(host) }]
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
    lookup(host, { all: true, verbatim: true }, (error, found) => {
      if (error !== null) reject(new TargetRefusedError(`${host} does not resolve`))
      else resolve(found)
    })
  })
  const refused = refusedAmong(addresses)
  if (refused !== undefined) throw new TargetRefusedError(`${host} resolves to ${refused}, which is not a public address`)
  return addresses
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for node:http that answers only public addresses, in the form the caller asked for:
 * the socket connects to the very addresses checked here.
 */
export function publicOnlyLookup (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  resolvePublicAddresses(hostname).then(addresses => {
    if (options.all === true) callback(null, addresses)
    else callback(null, addresses[0]!.address, addresses[0]!.family)
  }, (error: Error) => { callback(Object.assign(error, { code: 'ETARGETREFUSED' }), '') })
}

/**
 * Why a subscription's URL is refused, or undefined: http(s) only, and a public host unless private
 * targets are allowed. The reason names internal addresses: it goes to the log, never to the client.
 */
export async function checkTargetUrl (url: string, allowPrivateTargets: boolean): Promise<string | undefined> {
  const parsed = URL.parse(url)
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return 'The URL must be an http:// or https:// URL.'
  if (allowPrivateTargets) return undefined
  try {
    await resolvePublicAddresses(targetHost(parsed))
    return undefined
  } catch (error) {
    if (error instanceof TargetRefusedError) return `${error.message}: webhooks are delivered to public addresses only.`
    throw error
  }
}
