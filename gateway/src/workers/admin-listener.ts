import type { Server } from 'node:http';
import { closeServer, listen, MEMORY_DATA_DIR, type Stoppable } from '@connectivity/platform';
import { createOperatorServices } from '../clients/operator-services.ts';
import { createAdminApp } from '../routes/admin-app.ts';
import type { GatewayContext } from '../context.ts';
import { removeAdminFile, writeAdminFile } from './admin-file.ts';

/**
 * The operator admin API on its own listener (loopback by default). Once it listens, its URL is
 * on the context and, with its token, in DATA_DIR/admin.json (owner-only), so `pnpm cli` on the
 * same machine finds it; the file goes when the listener stops.
 */
export async function startAdminListener(context: GatewayContext): Promise<Stoppable> {
  const { config, db, logger, edge, admin } = context;
  const adminApp = createAdminApp({
    knex: db.knex,
    logger,
    adminToken: admin.token,
    metricsToken: config.METRICS_TOKEN,
    baseUrl: config.PUBLIC_BASE_URL,
    services: createOperatorServices({
      inventoryUrl: config.INVENTORY_URL,
      catalogueUrl: config.CATALOGUE_URL,
      // The admin listener's own credential: the only one the operator's routes admit (record 0222).
      internalToken: config.ADMIN_INTERNAL_TOKEN ?? config.INTERNAL_TOKEN ?? '',
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    }),
    keysChanged: edge.keysChanged,
  });
  const server: Server = await listen(adminApp, config.ADMIN_PORT, config.ADMIN_HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.ADMIN_PORT;
  const host = config.ADMIN_HOST === '0.0.0.0' || config.ADMIN_HOST === '::' ? '127.0.0.1' : config.ADMIN_HOST;
  admin.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const file = config.DATA_DIR === MEMORY_DATA_DIR ? undefined : await writeAdminFile(config.DATA_DIR, { url: admin.url, token: admin.token });
  logger.info({ url: admin.url }, 'operator admin API listening');
  return {
    async stop() {
      await closeServer(server);
      if (file) await removeAdminFile(file);
    },
  };
}
