import { isIP } from 'node:net';
import { ApiError, type Environment } from '@connectivity/contracts';
import { isPublicAddress, isRefusedHostname } from './address-policy.ts';

const MAX_URL_LENGTH = 2_048;

const invalidUrl = (message: string) => new ApiError('invalid_parameter', { param: 'url', message });

/**
 * The rules an endpoint URL must meet before any DNS lookup: http(s) only, no credentials in it,
 * and for live endpoints https and a host that is not a refused name or a non-public address
 * literal. Test endpoints may use http and localhost (DECISIONS.md "Webhooks"). Returns the
 * URL in its normalised form, which is also what duplicates are compared on.
 */
export function checkEndpointUrl(raw: string, environment: Environment): URL {
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
  if (environment === 'live') {
    if (url.protocol !== 'https:') throw invalidUrl('A live endpoint must use https.');
    const host = hostOf(url);
    if (isRefusedHostname(host) || (isIP(host) !== 0 && !isPublicAddress(host))) {
      throw invalidUrl(liveAddressMessage(host));
    }
  }
  url.hash = '';
  return url;
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

export const liveAddressMessage = (host: string) =>
  `A live endpoint needs a public address; ${host} is a loopback, private, link-local or metadata address.`;
