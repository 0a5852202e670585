// The types the app, the routes, the use cases and the background work share: here, apart from
// service.ts (which wires them), so nothing imports the wiring back and no import makes a cycle.
import type { CursorCodec, ServiceRuntime } from '@connectivity/platform';
import type { Config } from './config.ts';
import type { CatalogueDeps } from './use-cases/live-catalogue.ts';

/** What catalogue's app and use cases share. */
export interface CatalogueContext extends ServiceRuntime, CatalogueDeps {
  config: Config;
  cursors: CursorCodec;
}
