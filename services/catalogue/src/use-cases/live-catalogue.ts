import { ApiError, type Environment } from '@connectivity/contracts';
import { errorMessage, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { Supplier } from '../clients/suppliers/port.ts';
import { findLiveOrdering } from '../db/live-ordering.ts';
import type { SandboxBundles } from '../db/sandbox-bundles.ts';
import type { CatalogueBundle } from '../domain/bundle.ts';
import { supplierErrors } from './supplier-errors.ts';

/** What the catalogue's use cases read: the sandbox catalogue, each environment's supplier, the switches. */
export interface CatalogueDeps {
  knex: Knex;
  bundles: SandboxBundles;
  /** The simulated supplier (sandbox) and the live one (a vendor's adapter, or unconfigured). */
  suppliers: Record<Environment, Supplier>;
  /** Our margin over the supplier's cost, in percent (the price rule, domain/pricing.ts). */
  marginPercent: number;
  logger: Logger;
}

/**
 * The operator's switch (record 0256): off, the account's live
 * catalogue and live orders are refused before the supplier is asked. Suspend, resume and
 * cancel of eSIMs it already has stay possible.
 */
export async function assertLiveOrdering(deps: Pick<CatalogueDeps, 'knex'>, accountId: string): Promise<void> {
  if ((await findLiveOrdering(deps.knex, accountId)).enabled) return;
  throw new ApiError('capability_not_orderable', {
    message: 'Live ordering is switched off for this account; contact support to switch it on.',
  });
}

/** The live supplier's bundles with our prices; bundles it gives no price for cannot be sold. */
export async function liveCatalogue(deps: Pick<CatalogueDeps, 'suppliers' | 'logger'>): Promise<CatalogueBundle[]> {
  const [listed, priced] = await Promise.allSettled([deps.suppliers.live.listBundles(), deps.suppliers.live.listPrices()]);
  if (listed.status === 'rejected') {
    deps.logger.warn({ err: errorMessage(listed.reason) }, 'live supplier catalogue failed');
    throw supplierErrors.catalogue();
  }
  if (priced.status === 'rejected') {
    deps.logger.warn({ err: errorMessage(priced.reason) }, 'live supplier prices failed');
    throw supplierErrors.pricing();
  }
  const prices = priced.value;
  return listed.value.flatMap((bundle) => {
    const price = prices.get(bundle.name);
    return price === undefined ? [] : [{ ...bundle, price_cents: price }];
  });
}
