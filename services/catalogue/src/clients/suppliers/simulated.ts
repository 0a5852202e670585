import { randomInt } from 'node:crypto';
import type { SuppliedProfile } from '@connectivity/contracts';
import type { SandboxBundles } from '../../db/sandbox-bundles.ts';
import { SANDBOX_SMDP_ADDRESS, sandboxMatchingId } from '../../domain/activation-code.ts';
import { sandboxIccid } from '../../domain/iccid.ts';
import { SupplierError, type Supplier } from './port.ts';

const randomDigits = (count: number): string => Array.from({ length: count }, () => String(randomInt(10))).join('');

/** A simulated profile: a valid, random sandbox ICCID and an activation code no handset can install. */
export function sandboxProfile(): SuppliedProfile {
  return { iccid: sandboxIccid(randomDigits), smdp_address: SANDBOX_SMDP_ADDRESS, matching_id: sandboxMatchingId(randomInt) };
}

/** The test environment's supplier: the seeded sandbox catalogue, and profiles made up on the spot. */
export function createSimulatedSupplier(bundles: SandboxBundles): Supplier {
  return {
    live: false,
    async listBundles() {
      return (await bundles.all()).map(({ price_cents: _price, ...bundle }) => bundle);
    },
    async listPrices() {
      return new Map((await bundles.all()).map((b) => [b.name, b.price_cents]));
    },
    // The sandbox catalogue changes only by migrations.
    refreshCatalogue: () => undefined,
    async purchase({ bundle, quantity }) {
      if (!(await bundles.get(bundle))) throw new SupplierError('unknown', `unknown bundle ${bundle}`);
      return { outcome: 'bought', profiles: Array.from({ length: quantity }, sandboxProfile), unitCostCents: null };
    },
    // Nothing is bought, so there is nothing to find after a crash, and no vendor reports or calls back.
    findOrder: () => Promise.resolve(undefined),
    listOrders: () => Promise.resolve({ orders: [], nextPage: null }),
    profileReport: (iccid) => Promise.reject(new SupplierError('unknown', `the sandbox reports nothing of ${iccid}`)),
    parseCallback: () => Promise.reject(new SupplierError('unsupported', 'the sandbox has no callbacks')),
    // Sandbox profiles live nowhere else: suspending, resuming and ending them is only our own state.
    suspendProfile: () => Promise.resolve(),
    resumeProfile: () => Promise.resolve(),
    terminateProfile: () => Promise.resolve({ refund: 'none', vendorRefundId: null }),
    refundStatus: () => Promise.resolve('succeeded'),
  };
}
