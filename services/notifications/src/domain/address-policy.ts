import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach where the address policy applies (every live endpoint, and
 * test endpoints unless WEBHOOK_ALLOW_PRIVATE is on): public unicast only, so an endpoint URL
 * cannot be used to probe our own network. The ranges come from ipaddr.js (IANA's special-purpose
 * registries); anything it does not call `unicast` is refused: loopback, private, shared (CGNAT),
 * link-local (where cloud metadata services live), multicast, documentation, benchmarking and
 * reserved ranges.
 */

/** IPv6 outside global unicast (2000::/3) is never a public host: IPv4-compatible ::/96 falls here too. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * IPv4 carried in IPv6 that reaches the IPv4 host it carries: mapped (::ffff:0:0/96) and the
 * NAT64 well-known prefix (64:ff9b::/96, what DNS64 answers in an IPv6-only cluster for every
 * IPv4-only host). They are judged as that IPv4 address.
 */
const CARRIES_IPV4 = [ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), ipaddr.IPv6.parseCIDR('64:ff9b::/96')];

/** Host names that always mean "this machine" or a cloud metadata service. */
const REFUSED_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata$/i, /^metadata\.google\.internal$/i, /\.internal$/i];

export function isRefusedHostname(hostname: string): boolean {
  return REFUSED_HOSTNAMES.some((pattern) => pattern.test(hostname.replace(/\.$/, '')));
}

/**
 * True for an IP address (bare or in brackets) a webhook may be delivered to under the policy.
 * Other transition forms that embed IPv4 (IPv4-compatible ::/96, IPv4-translated
 * ::ffff:0:0:0/96, 6to4 2002::/16, Teredo 2001::/32, local-use NAT64 64:ff9b:1::/48) are
 * refused outright: where they lead depends on relays, and no webhook receiver needs them.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  // Node's check is strict (no octal, hex or short IPv4 forms, no zone id), so only a canonical address is judged.
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return ipaddr.IPv4.parse(bare).range() === 'unicast';
  const v6 = ipaddr.IPv6.parse(bare);
  if (CARRIES_IPV4.some((prefix) => v6.match(prefix))) {
    const [a = 0, b = 0, c = 0, d = 0] = v6.toByteArray().slice(12);
    return new ipaddr.IPv4([a, b, c, d]).range() === 'unicast';
  }
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}
