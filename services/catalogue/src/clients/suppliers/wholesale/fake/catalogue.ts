import { SANDBOX_BUNDLES, SANDBOX_ONLY_BUNDLES } from '../../../../db/migrations/sandbox-bundles.ts';
import type { WholesaleBundle } from '../wholesale-api.ts';

export interface FakeCatalogueEntry {
  bundle: WholesaleBundle;
  wholesale_cents: number;
}

/**
 * The fake supplier sells what the sandbox sells, less the sandbox-only bundles, at about 60%
 * of the sandbox price; the sandbox's retired bundle is retired here too.
 */
export function fakeSupplierCatalogue(): FakeCatalogueEntry[] {
  return SANDBOX_BUNDLES.filter((b) => !SANDBOX_ONLY_BUNDLES.has(b.name)).map(({ price_cents, retired, ...rest }) => ({
    bundle: { ...rest, status: retired ? 'retired' : 'active' },
    wholesale_cents: Math.round(price_cents * 0.6),
  }));
}

/** Its issuer id in ICCIDs: unlike the sandbox's (99), so live and sandbox ICCIDs never collide. */
export const FAKE_SUPPLIER_ISSUER_ID = '42';

/** An SM-DP+ host under the reserved `.example` domain: looks real, never resolves. */
export const FAKE_SUPPLIER_SMDP_ADDRESS = 'smdp.wholesale.example';
