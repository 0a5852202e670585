// The types the app, the routes, the use cases and the background work share: here, apart from
// service.ts (which wires them), so nothing imports the wiring back and no import makes a cycle.
import type { ServiceRuntime } from '@connectivity/platform';
import type { CatalogueClient } from './clients/catalogue-client.ts';
import type { Config } from './config.ts';

/** What inventory's app and workers share. */
export interface InventoryContext extends ServiceRuntime {
  config: Config;
  /** catalogue's internal API: bundles, profiles and live supply. */
  catalogue: CatalogueClient;
}
