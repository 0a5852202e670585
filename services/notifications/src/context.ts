// The types the app, the routes, the use cases and the background work share: here, apart from
// service.ts (which wires them), so nothing imports the wiring back and no import makes a cycle.
import type { ServiceRuntime } from '@connectivity/platform';
import type { ResolveHost } from './clients/public-host.ts';
import type { Config } from './config.ts';
import type { StreamLeases } from './db/stream-leases.ts';
import type { SecretBox } from './domain/secret-box.ts';
import type { StreamHubs } from './workers/stream-hub.ts';

/** Test hooks beyond the runtime: a DNS stand-in. */
export interface NotificationsOptions {
  resolveHost?: ResolveHost;
}

/** What notifications' app, consumers and workers share. */
export interface NotificationsContext extends ServiceRuntime {
  config: Config;
  /** DNS of the tenants' hosts (c-ares, with WEBHOOK_DNS_TIMEOUT_MS) unless a test plays DNS. */
  resolveHost: ResolveHost;
  /** Seals and opens the endpoints' signing secrets (and the idempotent answers that show one). */
  secrets: SecretBox;
  /** This instance's stream hubs and stream leases (the 'event streams' worker renews the leases and stops the hubs). */
  streams: { hubs: StreamHubs; leases: StreamLeases };
}
