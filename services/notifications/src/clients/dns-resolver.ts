import { Resolver } from 'node:dns/promises';
import type { ResolveHost } from './public-host.ts';

export interface DnsOptions {
  /** The whole lookup of a name (its IPv4 and IPv6 addresses) gives up after this long. */
  timeoutMs: number;
  /** `ip` or `ip:port` of the DNS servers to ask; none: the system's (resolv.conf). */
  servers?: readonly string[] | undefined;
}

/**
 * DNS for tenants' hosts on c-ares (node:dns/promises' Resolver): queries on the event loop's
 * own sockets, never on libuv's four threads running getaddrinfo, which a handful of names that
 * never answer would fill for every lookup of the process. Both families are asked at once; what
 * has answered when the timeout comes is used, and nothing is an ETIMEOUT. No hosts file is read:
 * a tenant's host is a name on the public DNS (localhost is answered by the address policy).
 */
export function createResolveHost(options: DnsOptions): ResolveHost {
  // Two tries (a lost UDP packet is asked again) of half the timeout each: c-ares gives up about when we do.
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / 2)), tries: 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
  return (hostname) => resolveWithin(resolver, hostname, options.timeoutMs);
}

function resolveWithin(resolver: Resolver, hostname: string, timeoutMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const found: { v4: string[]; v6: string[] } = { v4: [], v6: [] };
    let failure: unknown;
    let waiting = 2;
    const settle = () => {
      clearTimeout(timer);
      const addresses = [...found.v4, ...found.v6];
      if (addresses.length > 0) resolve(addresses);
      else reject(failure instanceof Error ? failure : new Error(`DNS for ${hostname} failed`));
    };
    const timer = setTimeout(() => {
      failure ??= Object.assign(new Error(`DNS for ${hostname}: no answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' });
      settle();
    }, timeoutMs);
    const ask = (family: 'v4' | 'v6', query: Promise<string[]>) => {
      void query
        .then(
          (addresses) => {
            found[family] = addresses;
          },
          (error: unknown) => {
            failure ??= error;
          },
        )
        .finally(() => {
          waiting -= 1;
          if (waiting === 0) settle();
        });
    };
    ask('v4', resolver.resolve4(hostname));
    ask('v6', resolver.resolve6(hostname));
  });
}
