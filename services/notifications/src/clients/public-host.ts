import { isIP } from 'node:net';
import type { Environment } from '@connectivity/contracts';
import { isPublicAddress, isRefusedHostname } from '../domain/address-policy.ts';
import { checkEndpointUrl, egressPolicy, hostOf, notPublicUrl, type EgressPolicy } from '../domain/endpoint-url.ts';

/** Resolves a host name to its addresses (clients/dns-resolver.ts); injectable so tests can play DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** `detail` is for our logs only: it may name what the host resolved to, which a tenant must never see. */
export type HostCheck = { ok: true; addresses: string[] } | { ok: false; detail: string };

/** RFC 6761: these names are the loopback, whatever a DNS server says. */
const LOOPBACK_NAME = /(^|\.)localhost\.?$/i;
const LOOPBACK = ['127.0.0.1', '::1'];

async function resolve(host: string, resolveHost: ResolveHost): Promise<HostCheck> {
  if (isIP(host) !== 0) return { ok: true, addresses: [host] };
  try {
    const addresses = await resolveHost(host);
    return addresses.length > 0 ? { ok: true, addresses } : { ok: false, detail: 'does not resolve (no address)' };
  } catch (error) {
    return { ok: false, detail: `does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
  }
}

/**
 * Where an endpoint under the address policy may be reached: every address its host resolves to
 * must be public (one private answer is enough to refuse, as DNS may rotate to it). The addresses
 * returned are the ones to connect to, so the check and the connection cannot see different DNS
 * answers.
 */
export async function checkPublicHost(url: URL, resolveHost: ResolveHost): Promise<HostCheck> {
  const host = hostOf(url);
  if (isRefusedHostname(host)) return { ok: false, detail: 'refused host name' };
  const found = await resolve(host, resolveHost);
  if (!found.ok) return found;
  const refused = found.addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) return { ok: false, detail: `resolves to ${refused}, not a public address` };
  return found;
}

/**
 * The addresses a delivery connects to: under the address policy those checked; otherwise what
 * the name resolves to (localhost is the loopback), so a tenant's host is never looked up by the
 * HTTP client itself (getaddrinfo, on libuv's threads, with no timeout of ours).
 */
export async function deliveryAddresses(url: URL, policy: EgressPolicy, resolveHost: ResolveHost): Promise<HostCheck> {
  if (policy === 'public') return checkPublicHost(url, resolveHost);
  const host = hostOf(url);
  if (LOOPBACK_NAME.test(host)) return { ok: true, addresses: LOOPBACK };
  return resolve(host, resolveHost);
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
