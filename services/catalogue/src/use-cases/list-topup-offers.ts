import { ApiError, type InternalBundle } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { toInternalBundle } from '../domain/bundle.ts';
import { canTopUp } from '../domain/topup-offers.ts';
import type { CatalogueDeps } from './live-catalogue.ts';
import { liveTopupOffers } from './live-topups.ts';

/**
 * GET /internal/topup-offers: the bundles that can be added to the profile `iccid`, bought with `bundle`,
 * by name. The sandbox's come from its catalogue; a live supplier is asked for its own offers for the
 * profile (records 0245, 0248; a vendor whose top-ups are not built refuses as not orderable, record 0244).
 */
export async function listTopupOffers(deps: CatalogueDeps, caller: Caller, query: { bundle: string; iccid: string }): Promise<InternalBundle[]> {
  if (caller.environment !== 'test') return liveTopupOffers(deps, caller, query);
  const base = await deps.bundles.get(query.bundle);
  if (!base) throw new ApiError('resource_not_found', { param: 'bundle', message: `No bundle named \`${query.bundle}\`.` });
  return (await deps.bundles.all()).filter((offer) => canTopUp(base, offer)).map((offer) => toInternalBundle(offer, false, ['test']));
}
