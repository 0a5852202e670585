import { ApiError, type Environment, type InternalBundle, type SuppliedProfile } from '@connectivity/contracts';
import type { Logger } from '@connectivity/platform';
import type { BundleRepository } from './db/bundle-repository.ts';
import type { LiveOrderingRepository } from './db/live-ordering-repository.ts';
import { matchesFilter, toPublicBundle, type BundleFilter, type CatalogueBundle } from './domain/bundle.ts';
import { supplierErrors } from './supplier/errors.ts';
import { isSupplierError, type ProfileAction, type Supplier } from './supplier/types.ts';

export interface CatalogueDeps {
  bundles: BundleRepository;
  /** The simulated supplier (sandbox) and the live one (HTTP, or unconfigured). */
  suppliers: Record<Environment, Supplier>;
  liveOrdering: LiveOrderingRepository;
  logger: Logger;
}

/** Who asks: the account and the environment of its key. */
export interface CatalogueCaller {
  accountId: string;
  environment: Environment;
}

/**
 * The catalogue's use cases: listing and finding bundles and supplying profiles, each in the
 * caller's environment. The sandbox lists from its table (filtered and paged in SQL); live
 * lists from the supplier, priced, filtered and paged in memory.
 */
export function createCatalogue(deps: CatalogueDeps) {
  const { bundles, suppliers, liveOrdering, logger } = deps;

  /**
   * The operator's switch (DECISIONS.md "When the rarer codes occur"): off, the account's live
   * catalogue and live orders are refused before the supplier is asked. Suspend, resume and
   * cancel of eSIMs it already has stay possible.
   */
  async function assertLiveOrdering(accountId: string): Promise<void> {
    if ((await liveOrdering.get(accountId)).enabled) return;
    throw new ApiError('capability_not_orderable', {
      message: 'Live ordering is switched off for this account; contact support to switch it on.',
    });
  }

  /** The live supplier's bundles with our prices; bundles it gives no price for cannot be sold. */
  async function liveCatalogue(): Promise<CatalogueBundle[]> {
    const [listed, priced] = await Promise.allSettled([suppliers.live.listBundles(), suppliers.live.listPrices()]);
    if (listed.status === 'rejected') {
      logger.warn({ err: errorMessage(listed.reason) }, 'live supplier catalogue failed');
      throw supplierErrors.catalogue();
    }
    if (priced.status === 'rejected') {
      logger.warn({ err: errorMessage(priced.reason) }, 'live supplier prices failed');
      throw supplierErrors.pricing();
    }
    const prices = priced.value;
    return listed.value.flatMap((bundle) => {
      const price = prices.get(bundle.name);
      return price === undefined ? [] : [{ ...bundle, price_cents: price }];
    });
  }

  return {
    /** Up to `limit` listed bundles after `afterName`, by name (byte order). */
    async list({ accountId, environment }: CatalogueCaller, filter: BundleFilter, afterName: string | undefined, limit: number) {
      if (environment === 'test') return bundles.list(filter, afterName, limit);
      await assertLiveOrdering(accountId);
      return (await liveCatalogue())
        .filter((b) => matchesFilter(b, filter) && (afterName === undefined || b.name > afterName))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, limit);
    },

    /** A bundle by name for an order in `environment`, retired or not; 404 when no catalogue knows it. */
    async find({ accountId, environment }: CatalogueCaller, name: string): Promise<InternalBundle> {
      const sandbox = await bundles.get(name);
      if (environment === 'test') {
        if (!sandbox) throw notFound(name);
        return { ...toPublicBundle(sandbox, false), retired: sandbox.retired, environments: ['test'] };
      }
      await assertLiveOrdering(accountId);
      const live = (await liveCatalogue()).find((b) => b.name === name);
      if (live) {
        return { ...toPublicBundle(live, true), retired: live.retired, environments: sandbox ? ['test', 'live'] : ['live'] };
      }
      // Known only to the sandbox: the order is refused as capability_not_live by the caller.
      if (sandbox) return { ...toPublicBundle(sandbox, false), retired: sandbox.retired, environments: ['test'] };
      throw notFound(name);
    },

    async orderProfiles({ accountId, environment }: CatalogueCaller, input: { reference: string; bundle: string; quantity: number }): Promise<SuppliedProfile[]> {
      // Checked again here: the switch may have been turned off since the bundle was looked up.
      if (environment === 'live') await assertLiveOrdering(accountId);
      try {
        return await suppliers[environment].orderProfiles(input);
      } catch (error) {
        if (!isSupplierError(error)) throw error;
        logger.warn({ err: error.message, failure: error.failure, reference: input.reference }, 'supplier order failed');
        throw supplierErrors.order(error, input.bundle);
      }
    },

    /**
     * `count` simulated profiles of a sandbox bundle at once, for the stock sandbox orders take
     * from: the simulated supplier makes them up and keeps no record, so a profile handed out
     * later is the same as one made for the order.
     */
    async stockSandboxProfiles(caller: CatalogueCaller, input: { bundle: string; count: number }): Promise<SuppliedProfile[]> {
      if (caller.environment !== 'test') throw new ApiError('live_key_test_resource');
      return this.orderProfiles(caller, { reference: 'sandbox-stock', bundle: input.bundle, quantity: input.count });
    },

    async profileAction(environment: Environment, iccid: string, action: ProfileAction): Promise<void> {
      const supplier = suppliers[environment];
      const calls = {
        suspend: () => supplier.suspendProfile(iccid),
        resume: () => supplier.resumeProfile(iccid),
        terminate: () => supplier.terminateProfile(iccid),
      };
      try {
        await calls[action]();
      } catch (error) {
        if (!isSupplierError(error)) throw error;
        logger.warn({ err: error.message, failure: error.failure, action }, 'supplier profile action failed');
        throw supplierErrors.profileAction(error, action);
      }
    },
  };
}

export type Catalogue = ReturnType<typeof createCatalogue>;

const notFound = (name: string) => new ApiError('resource_not_found', { param: 'name', message: `No bundle named \`${name}\`.` });

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
