import { isIP } from 'node:net';
import { ApiError, type Environment } from '@connectivity/contracts';
import { isPublicAddress, isRefusedHostname } from './address-policy.ts';

const MAX_URL_LENGTH = 2_048;

const invalidUrl = (message: string) => new ApiError('invalid_parameter', { param: 'url', message });

/**
 * Where an endpoint may send: `public` obeys the address policy (checked at creation, DNS-checked
 * and pinned at each delivery); `any` reaches any host. Live endpoints are always `public`; test
 * endpoints too, unless the deployment allows private addresses (WEBHOOK_ALLOW_PRIVATE, on for
 * `pnpm start`, where the receiver is on the integrator's own machine).
 */
export type EgressPolicy = 'public' | 'any';

export const egressPolicy = (environment: Environment, allowPrivate: boolean): EgressPolicy => (environment === 'test' && allowPrivate ? 'any' : 'public');

/**
 * The one answer for a host the policy refuses, whatever the reason (a refused name, a
 * non-public address, a name that resolves to one, or does not resolve): it never says what a
 * name resolved to, so creating endpoints cannot be used to read our DNS.
 */
export const NOT_PUBLIC_MESSAGE =
  'url must reach a public address: its host is a loopback, private, link-local or metadata address, resolves to one, or does not resolve.';

export const notPublicUrl = () => invalidUrl(NOT_PUBLIC_MESSAGE);

/**
 * The rules an endpoint URL must meet before any DNS lookup: http(s) only, no credentials in it;
 * live endpoints need https; under the `public` policy the host must not be a refused name or a
 * non-public address literal (record 0253). Returns the URL in its normalised form,
 * which is also what duplicates are compared on.
 */
export function checkEndpointUrl(raw: string, environment: Environment, policy: EgressPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) throw invalidUrl(`url must be at most ${MAX_URL_LENGTH} characters long.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidUrl('url must be an absolute http or https URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidUrl('url must be an http or https URL.');
  if (url.username !== '' || url.password !== '') {
    throw invalidUrl('url must not contain credentials: authenticate deliveries with the signing secret instead.');
  }
  if (environment === 'live' && url.protocol !== 'https:') throw invalidUrl('A live endpoint must use https.');
  if (policy === 'public') {
    const host = hostOf(url);
    if (isRefusedHostname(host) || (isIP(host) !== 0 && !isPublicAddress(host))) throw notPublicUrl();
  }
  url.hash = '';
  return url;
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');
