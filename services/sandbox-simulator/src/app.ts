import { createServiceApp, serviceFrame, type ServiceRuntime } from '@connectivity/platform';
import type { Express } from 'express';
import type { Config } from './config.ts';
import { SCHEMA } from './db/migrations/index.ts';
import { createInventoryClient, type InventoryClient } from './inventory/inventory-client.ts';
import { mountTestHelperRoutes } from './routes/test-helpers.ts';

export interface AppDeps extends ServiceRuntime {
  config: Config;
  /** Inventory's internal API; built from INVENTORY_URL unless given. */
  inventory?: InventoryClient;
}

/** The sandbox-simulator HTTP app; never listens, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const inventory =
    deps.inventory ??
    createInventoryClient({
      baseUrl: deps.config.INVENTORY_URL,
      internalToken: deps.config.INTERNAL_TOKEN ?? '',
      timeoutMs: deps.config.INVENTORY_TIMEOUT_MS,
    });
  return createServiceApp({
    ...serviceFrame(deps),
    // POST /v1/test/error changes nothing but is answered the same to a retry, marked replayed,
    // as every mutating call is; POST /v1/test/usage is also recorded by inventory, which makes the change.
    idempotency: { knex: deps.db.knex, schema: SCHEMA, leaseMs: deps.config.IDEMPOTENCY_LEASE_MS },
    routes: (app) => mountTestHelperRoutes(app, { inventory }),
  });
}
