import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Environment } from '@connectivity/contracts';
import type { AttemptResult } from '../domain/delivery-outcome.ts';
import { checkPublicHost, type ResolveHost } from './public-host.ts';

export interface SendRequest {
  url: string;
  environment: Environment;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  resolveHost: ResolveHost;
}

const USER_AGENT = 'connectivity-webhooks/1';

/**
 * One HTTP POST of a signed payload. Live endpoints are checked again here, after DNS, and the
 * connection goes to the address that was checked (no second lookup a rebinding DNS could
 * answer differently). Redirects are not followed. Never throws: every failure is a result.
 */
export async function sendWebhook(request: SendRequest): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(request.url);

  let lookup: LookupFunction | undefined;
  if (request.environment === 'live') {
    const check = await checkPublicHost(url, request.resolveHost);
    if (!check.ok) return { kind: 'error', error: `Refused: ${check.reason}`, durationMs: elapsed() };
    lookup = pinnedLookup(check.address);
  }

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      agent: false,
      lookup,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': USER_AGENT,
      },
    });
    const timer = setTimeout(() => {
      finish({ kind: 'error', error: `No answer within ${request.timeoutMs} ms.`, durationMs: elapsed() });
      req.destroy();
    }, request.timeoutMs);
    req.on('response', (res) => {
      const retryAfter = res.headers['retry-after'];
      finish({ kind: 'response', statusCode: res.statusCode ?? 0, retryAfter, durationMs: elapsed() });
      // Only the status matters; the body is dropped and the connection closed.
      res.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ kind: 'error', error: describeNetworkError(err), durationMs: elapsed() });
    });
    req.end(request.body);
  });
}

/** A lookup that always answers the address already checked. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function describeNetworkError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'Connection refused.';
    case 'ECONNRESET':
      return 'Connection reset by the endpoint.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The host does not resolve.';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'The host is unreachable.';
    default:
      return err.code ? `Network error ${err.code}.` : `Network error: ${err.message}`;
  }
}
