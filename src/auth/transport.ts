import type { FastifyRequest } from 'fastify'
import { isIP } from 'node:net'

/** Loopback addresses: the client is on this machine, so the token never crossed a network. */
export function isLoopback (address: string | undefined): boolean {
  if (address === undefined) return false
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(plain) === 4) return plain.startsWith('127.')
  return plain === '::1'
}

/**
 * A token travels over HTTPS (docs/api.md, "Transport"). `request.protocol` and `request.ip` already
 * follow TRUST_PROXY: behind a trusted proxy they are what the proxy reports.
 */
export function tokenTransportIsSafe (request: FastifyRequest, allowInsecure: boolean): boolean {
  return allowInsecure || request.protocol === 'https' || isLoopback(request.ip)
}
