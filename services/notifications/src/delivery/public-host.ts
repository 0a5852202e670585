import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress, isRefusedHostname } from '../domain/address-policy.ts';
import { hostOf } from '../domain/endpoint-url.ts';

/** Resolves a host name to its addresses; injectable so tests can play DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => entry.address);
};

export type PublicHostCheck = { ok: true; address: string } | { ok: false; reason: string };

/**
 * Where a live endpoint may be reached: every address its host resolves to must be public (one
 * private answer is enough to refuse, as DNS may rotate to it). The address returned is the
 * one to connect to, so the check and the connection cannot see different DNS answers.
 */
export async function checkPublicHost(url: URL, resolveHost: ResolveHost): Promise<PublicHostCheck> {
  const host = hostOf(url);
  if (isRefusedHostname(host)) return { ok: false, reason: `${host} is not a public host.` };
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await resolveHost(host);
    } catch {
      return { ok: false, reason: `${host} does not resolve.` };
    }
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, reason: `${host} does not resolve.` };
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) return { ok: false, reason: `${host} resolves to ${refused}, which is not a public address.` };
  return { ok: true, address: first };
}
