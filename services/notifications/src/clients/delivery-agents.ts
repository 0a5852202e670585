import http from 'node:http';
import https from 'node:https';
import type { EgressPolicy } from '../domain/endpoint-url.ts';

/**
 * Connections to tenants' hosts kept alive between deliveries (record 0277), so a burst of events
 * to one receiver costs one TCP (and TLS) handshake per concurrent delivery, not one per event.
 *
 * A kept connection is reused only by a delivery that would have opened the same one: the pool is
 * keyed by the host and port (Node's own key) and also by the address policy and the addresses the
 * delivery's own lookup found and checked. A name that now resolves elsewhere, or a delivery under
 * the other policy, opens its own connection to what it checked (records 0092, 0193).
 */

/** What `sendWebhook` adds to the request's options so that the pool can key by it. */
export interface PinnedOptions {
  pinnedTo: string;
}

export const pinnedKey = (policy: EgressPolicy, addresses: readonly string[]): string => `${policy}|${[...addresses].sort().join(',')}`;

/**
 * The bound: an idle connection is closed after 4 s (sooner when the host's `Keep-Alive: timeout`
 * says so; Node's own servers close theirs after 5 s), and at most 32 are kept idle per key. The
 * delivery worker's concurrency bounds those in use.
 */
const POOL = { keepAlive: true, timeout: 4_000, maxFreeSockets: 32, scheduling: 'lifo' } as const;

const keyed = (name: string, options: unknown): string => `${name}|${(options as Partial<PinnedOptions>).pinnedTo ?? ''}`;

class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs): string {
    return keyed(super.getName(options), options);
  }
}

class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions): string {
    return keyed(super.getName(options), options);
  }
}

/** One pool per transport for the whole process: the sockets are the process's, not an app's. */
export const deliveryAgents = { http: new PinnedHttpAgent(POOL), https: new PinnedHttpsAgent(POOL) };
