// The types the app, the routes, the use cases and the background work share: here, apart from
// service.ts (which wires them), so nothing imports the wiring back and no import makes a cycle.
import type { ServiceRuntime } from '@connectivity/platform';
import type { InventoryClient } from './clients/inventory.ts';
import type { Config } from './config.ts';

/** What the simulator's app and use cases share. */
export interface SimulatorContext extends ServiceRuntime {
  config: Config;
  /** Inventory's internal API, which owns the eSIMs the helpers act on. */
  inventory: InventoryClient;
}
