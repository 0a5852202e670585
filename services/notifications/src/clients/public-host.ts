import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Environment } from '@connectivity/contracts';
import { isPublicAddress, isRefusedHostname } from '../domain/address-policy.ts';
import { checkEndpointUrl, egressPolicy, hostOf, notPublicUrl } from '../domain/endpoint-url.ts';

/** Resolves a host name to its addresses; injectable so tests can play DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => entry.address);
};

/** `detail` is for our logs only: it may name what the host resolved to, which a tenant must never see. */
export type PublicHostCheck = { ok: true; address: string } | { ok: false; detail: string };

/**
 * Where an endpoint under the address policy may be reached: every address its host resolves to
 * must be public (one private answer is enough to refuse, as DNS may rotate to it). The address
 * returned is the one to connect to, so the check and the connection cannot see different DNS
 * answers.
 */
export async function checkPublicHost(url: URL, resolveHost: ResolveHost): Promise<PublicHostCheck> {
  const host = hostOf(url);
  if (isRefusedHostname(host)) return { ok: false, detail: 'refused host name' };
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await resolveHost(host);
    } catch (error) {
      return { ok: false, detail: `does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
    }
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, detail: 'does not resolve (no address)' };
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) return { ok: false, detail: `resolves to ${refused}, not a public address` };
  return { ok: true, address: first };
}

/**
 * The URL an endpoint may have in `environment`: the static rules, then under the address policy
 * the DNS answer (the same refusal whatever the name resolved to).
 */
export async function acceptedEndpointUrl(raw: string, environment: Environment, dns: { resolveHost: ResolveHost; allowPrivate: boolean }): Promise<string> {
  const policy = egressPolicy(environment, dns.allowPrivate);
  const url = checkEndpointUrl(raw, environment, policy);
  if (policy === 'public' && !(await checkPublicHost(url, dns.resolveHost)).ok) throw notPublicUrl();
  return url.toString();
}
