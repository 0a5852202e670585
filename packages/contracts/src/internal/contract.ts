import { initContract } from '@ts-rest/core';
import { internalCatalogueContract } from './catalogue.ts';
import { internalInventoryContract } from './inventory.ts';

const c = initContract();

/** Service-to-service routes: typed clients and handlers only, never in openapi.json nor behind the gateway. */
export const internalContract = c.router({
  catalogue: internalCatalogueContract,
  inventory: internalInventoryContract,
});
export type InternalContract = typeof internalContract;
