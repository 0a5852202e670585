import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { untracedRequest } from '@connectivity/platform';
import type { AttemptResult } from '../domain/delivery-outcome.ts';
import type { EgressPolicy } from '../domain/endpoint-url.ts';
import { networkFailure } from '../domain/network-failure.ts';
import { deliveryAgents, pinnedKey, type PinnedOptions } from './delivery-agents.ts';
import { deliveryAddresses, type ResolveHost } from './public-host.ts';

export interface SendRequest {
  url: string;
  /** `public`: the host is checked after DNS. Either way the connection goes to the addresses found. */
  policy: EgressPolicy;
  headers: Record<string, string>;
  body: string;
  /** The whole answer, from the connection's start to the status (record 0253: 15 s). */
  timeoutMs: number;
  /** The connection: TCP connect and, for https, the TLS handshake. */
  connectTimeoutMs: number;
  /** From the connection to the first byte of the answer. */
  firstByteTimeoutMs: number;
  resolveHost: ResolveHost;
}

const USER_AGENT = 'connectivity-webhooks/1';

/**
 * One HTTP POST of a signed payload. The host is resolved here, by our resolver with its own
 * timeout; under the address policy it is checked after DNS, and the connection goes to the
 * addresses that were checked (no second lookup a rebinding DNS could answer differently).
 * Connections are kept alive between deliveries to the same checked addresses (record 0277).
 * Redirects are not followed. Never throws: every failure is a result, its class for the tenant
 * and its detail for our logs.
 */
export async function sendWebhook(request: SendRequest): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(request.url);

  const target = await deliveryAddresses(url, request.policy, request.resolveHost);
  if (!target.ok)
    return {
      kind: 'error',
      failure: 'connection_error',
      detail: `${request.policy === 'public' ? 'address policy: ' : ''}${target.detail}`,
      durationMs: elapsed(),
    };
  const post: Post = {
    url,
    request,
    lookup: pinnedLookup(target.addresses),
    pinnedTo: pinnedKey(request.policy, target.addresses),
    windowEndsAt: performance.now() + request.timeoutMs,
    elapsed,
  };
  const first = await postOnce(post, true);
  // A kept connection the host had closed in the meantime: the request did not reach it, so it
  // goes once more, on a new connection, within what is left of the window.
  return first.staleConnection ? (await postOnce(post, false)).result : first.result;
}

interface Post {
  url: URL;
  request: SendRequest;
  lookup: LookupFunction;
  pinnedTo: string;
  /** The answer's window is counted from the first connection, across the second try. */
  windowEndsAt: number;
  elapsed: () => number;
}

/** An answer's body is read to its end (so the connection can be kept), up to this much and this long. */
const DRAIN = { bytes: 64 * 1024, ms: 1_000 };

function postOnce(post: Post, pooled: boolean): Promise<{ result: AttemptResult; staleConnection: boolean }> {
  const { url, request, elapsed } = post;
  return new Promise((resolve) => {
    let settled = false;
    const timers = new Set<NodeJS.Timeout>();
    const finish = (result: AttemptResult, staleConnection = false) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      resolve({ result, staleConnection });
    };
    const secure = url.protocol === 'https:';
    const transport = secure ? https : http;
    const options: https.RequestOptions & PinnedOptions = {
      method: 'POST',
      agent: pooled ? deliveryAgents[secure ? 'https' : 'http'] : false,
      pinnedTo: post.pinnedTo,
      lookup: post.lookup,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': USER_AGENT,
      },
    };
    // A tenant's host: no traceparent of ours goes to it, and it labels no metric (the attempt has its own span).
    const req = transport.request(url, untracedRequest(options));
    // Each phase has its own limit, so a host that never accepts or never answers is given up on
    // before the whole answer's window; every one is a timeout to the tenant.
    const limit = (what: string, ms: number) => {
      const timer = setTimeout(() => {
        finish({ kind: 'error', failure: 'timeout', detail: `${what} within ${ms} ms`, durationMs: elapsed() });
        req.destroy();
      }, ms);
      timers.add(timer);
      return timer;
    };
    limit('no answer', Math.max(0, Math.round(post.windowEndsAt - performance.now())));
    req.on('socket', (socket) => {
      const awaitFirstByte = () => {
        const waiting = limit('no first byte', request.firstByteTimeoutMs);
        socket.once('data', () => clearTimeout(waiting));
      };
      // A kept connection is already made; a new one has its own limit until it is.
      if (req.reusedSocket) return awaitFirstByte();
      const connecting = limit('no connection', request.connectTimeoutMs);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(connecting);
        awaitFirstByte();
      });
    });
    req.on('response', (res) => {
      const retryAfter = res.headers['retry-after'];
      finish({ kind: 'response', statusCode: res.statusCode ?? 0, retryAfter, durationMs: elapsed() });
      drain(res);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish({ kind: 'error', failure: networkFailure(err.code), detail: err.code ?? err.message, durationMs: elapsed() }, stale);
    });
    req.end(request.body);
  });
}

/** Only the status matters; the body is read and dropped so the connection can serve the next delivery, or closed if it is long or slow. */
function drain(res: http.IncomingMessage): void {
  let bytes = 0;
  const timer = setTimeout(() => res.destroy(), DRAIN.ms);
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DRAIN.bytes) res.destroy();
  });
  res.once('close', () => clearTimeout(timer));
  res.on('error', () => undefined);
}

/**
 * A lookup that answers the addresses already found: all of them when asked for all (Node then
 * tries each, IPv4 and IPv6 in turn), else the first.
 */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const [first] = entries;
    if (options.all) callback(null, entries);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
  };
}
