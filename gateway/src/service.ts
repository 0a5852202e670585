import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import {
  MEMORY_DATA_DIR,
  closeServer,
  listen,
  startIdempotencyPurge,
  startOutboxRelay,
  type ServiceDefinition,
  type ServiceRuntime,
  type StartedService,
} from '@connectivity/platform';
import { createAdminApp } from './admin/admin-app.ts';
import { removeAdminFile, writeAdminFile } from './admin/admin-file.ts';
import { createApp } from './app.ts';
import { createEdgeState } from './edge/edge-state.ts';
import { loadConfig, type Config } from './config.ts';
import { gatewayIdempotency } from './db/idempotency-repository.ts';
import { SCHEMA, migrations } from './db/migrations/index.ts';

/**
 * The gateway as a deployable: the public app, the outbox relay for `api_key.*` events, the
 * purge of expired idempotency records, and the operator admin API on its own listener
 * (loopback by default). With no ADMIN_TOKEN a random one is made; the admin URL and token are
 * written to DATA_DIR/admin.json (owner-only) so `pnpm cli` on the same machine finds them.
 */
export interface StartedGateway extends StartedService {
  /** Where the operator admin API listens, and its token. */
  adminUrl: string;
  adminToken: string;
}

export async function startGateway(runtime: ServiceRuntime, config: Config): Promise<StartedGateway> {
    const { db, bus, logger } = runtime;
    const relay = startOutboxRelay({ knex: db.knex, bus, schema: SCHEMA, logger });
    const edge = createEdgeState(runtime, config);
    const app = createApp({ ...runtime, config, edge });
    const purge = startIdempotencyPurge({ knex: db.knex, store: gatewayIdempotency, logger });

    const adminToken = config.ADMIN_TOKEN ?? randomBytes(32).toString('base64url');
    const adminApp = createAdminApp({
      knex: db.knex,
      logger,
      adminToken,
      baseUrl: config.PUBLIC_BASE_URL,
      inventory: { url: config.INVENTORY_URL, internalToken: config.INTERNAL_TOKEN ?? '', timeoutMs: config.UPSTREAM_TIMEOUT_MS },
      catalogue: { url: config.CATALOGUE_URL, internalToken: config.INTERNAL_TOKEN ?? '', timeoutMs: config.UPSTREAM_TIMEOUT_MS },
      keysChanged: edge.keysChanged,
    });
    const adminServer: Server = await listen(adminApp, config.ADMIN_PORT, config.ADMIN_HOST);
    const address = adminServer.address();
    const port = typeof address === 'object' && address ? address.port : config.ADMIN_PORT;
    const host = config.ADMIN_HOST === '0.0.0.0' || config.ADMIN_HOST === '::' ? '127.0.0.1' : config.ADMIN_HOST;
    const adminUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    let adminFile: string | undefined;
    if (config.DATA_DIR !== MEMORY_DATA_DIR) adminFile = await writeAdminFile(config.DATA_DIR, { url: adminUrl, token: adminToken });
    logger.info({ url: adminUrl }, 'operator admin API listening');

    return {
      app,
      adminUrl,
      adminToken,
      async stop() {
        await closeServer(adminServer);
        if (adminFile) await removeAdminFile(adminFile);
        await purge.stop();
        await edge.stop();
        await relay.stop();
      },
    };
}

export const gatewayService: ServiceDefinition<Config> = {
  name: 'gateway',
  migrations,
  loadConfig,
  start: startGateway,
};
