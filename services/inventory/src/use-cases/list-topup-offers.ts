import { ApiError, type Bundle, type InternalBundle, type List } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import type { TopupClient } from '../clients/topup-client.ts';
import type { EsimRecord } from '../domain/esim.ts';
import { findReachableEsim } from './get-esim.ts';

const positionSchema = z.object({ name: z.string().min(1) });

/** The public bundle of an offer (without what only inventory reads). */
const toPublicOffer = ({ retired: _retired, environments: _environments, ...bundle }: InternalBundle): Bundle => bundle;

/**
 * The offers that can top `esim` up, by name (record 0240). A cancelled eSIM has none; an eSIM with no
 * bundle (none was recorded) has none either. A live one's come from its supplier (record 0245).
 */
export async function topupOffersFor(topups: TopupClient, caller: Caller, esim: EsimRecord): Promise<InternalBundle[]> {
  if (esim.bundle === null || (esim.state === 'expired' && esim.expired_reason === 'cancelled')) return [];
  try {
    return await topups.offers(caller, { bundle: esim.bundle, iccid: esim.iccid });
  } catch (error) {
    // The eSIM's own bundle is no longer known to the catalogue: nothing can be added to it.
    if (error instanceof ApiError && error.code === 'resource_not_found') return [];
    throw error;
  }
}

/** The offers to list: none where the live supplier tops nothing up (no vendor configured, or one whose top-ups are not built: record 0244; a top-up is then refused). */
async function listableOffers(topups: TopupClient, caller: Caller, esim: EsimRecord): Promise<InternalBundle[]> {
  try {
    return await topupOffersFor(topups, caller, esim);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'capability_not_orderable') return [];
    throw error;
  }
}

/** GET /v1/esim/{id}/topups: the offers a page at a time, with a cursor bound to the eSIM. */
export async function listTopupOffers(
  deps: { knex: Knex; topups: TopupClient; cursors: CursorCodec },
  caller: Caller,
  idOrIccid: string,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<Bundle>> {
  const esim = await findReachableEsim(deps.knex, caller, idOrIccid);
  const binding = { list: 'topup_offers', accountId: caller.accountId, environment: caller.environment, esim: esim.id };
  const after = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, positionSchema);
  const offers = (await listableOffers(deps.topups, caller, esim)).filter((offer) => after === undefined || offer.name > after.name);
  return toPage(offers.slice(0, query.limit + 1).map(toPublicOffer), query.limit, (last) => deps.cursors.encode({ name: last.name }, binding));
}
