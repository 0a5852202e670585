import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a live webhook may reach: public unicast only. Loopback, private, shared
 * (CGNAT), link-local (where cloud metadata services live), multicast, documentation and
 * reserved ranges are refused, so an endpoint URL cannot be used to probe our own network.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, incl. fd00:ec2::254 metadata
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** Host names that always mean "this machine" or a cloud metadata service. */
const REFUSED_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata$/i, /^metadata\.google\.internal$/i, /\.internal$/i];

export function isRefusedHostname(hostname: string): boolean {
  return REFUSED_HOSTNAMES.some((pattern) => pattern.test(hostname.replace(/\.$/, '')));
}

/** True for an IP address a live webhook may be delivered to. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return !refused.check(bare, 'ipv4');
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) return !refused.check(embedded, 'ipv4');
  return !refused.check(bare, 'ipv6');
}

/**
 * IPv4 carried inside IPv6 (`::ffff:a.b.c.d` mapped, `::a.b.c.d` compatible, `64:ff9b::a.b.c.d`
 * NAT64) reaches the IPv4 host, so it is judged as that IPv4 address.
 */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1] ?? '0', 16);
  const low = parseInt(hex[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
