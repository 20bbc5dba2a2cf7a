// Which addresses a webhook may be delivered to: the public internet's only. A target inside the
// service's network (its loopback, private ranges, cloud metadata at link-local addresses) would let
// whoever registers a webhook make the service call it for them.
import ipaddr from 'ipaddr.js'

// IPv4-compatible IPv6 (::a.b.c.d) is deprecated, and ipaddr.js calls it unicast: it carries an IPv4 address.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/** Whether an IP address (v4 or v6, an IPv4-mapped v6 judged as its v4) is an ordinary public one. */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false
  return parsed.range() === 'unicast'
}
