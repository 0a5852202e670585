import { ApiError, type InternalBundle, type Topup } from '@connectivity/contracts';
import { newId, type Caller, type IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { TopupClient } from '../clients/topup-client.ts';
import { recordEsimEvents } from '../db/esim-events.ts';
import { findEsim } from '../db/esim-repository.ts';
import { addEvent } from '../db/outbox-events.ts';
import { payFromSimulatedBalance } from '../db/simulated-payment.ts';
import { esimTime } from '../db/test-clock-repository.ts';
import { insertTopup, saveToppedUpEsim, stateBeforeExpiry } from '../db/topup-repository.ts';
import { notFound } from '../domain/access.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { dataLimitBytes } from '../domain/order.ts';
import { assertToppable, revives, toPublicTopup, toppedUp, type TopupRecord } from '../domain/topup.ts';
import { findReachableEsim } from './get-esim.ts';
import { topupOffersFor } from './list-topup-offers.ts';

export interface CreateTopupDeps {
  knex: Knex;
  topups: TopupClient;
  now?: () => Date;
}

/**
 * POST /v1/esim/{id}/topups (records 0240-0243). The eSIM is checked (a cancelled one is 409) and the
 * bundle found among its offers (400 `invalid_parameter`, `param: "bundle"` otherwise) before anything
 * is written; then ONE transaction, under the eSIM's row lock, pays (the simulated balance, when set),
 * records the top-up, adds its data and validity to the eSIM, revives it when it had expired for want
 * of data or time, writes `esim.topped_up` (and the event of the state it came back to) and the
 * idempotent answer. A live eSIM is topped up by its supplier (record 0244): refused until it can be.
 */
export async function createTopup(
  deps: CreateTopupDeps,
  caller: Caller,
  idOrIccid: string,
  input: { bundle: string },
  claim: IdempotencyClaim,
): Promise<Topup> {
  const now = deps.now ?? (() => new Date());
  const seen = await findReachableEsim(deps.knex, caller, idOrIccid);
  assertToppable(seen);
  if (seen.environment === 'live') {
    throw new ApiError('capability_not_orderable', { message: 'Live top-ups are not offered by the configured supplier yet; nothing was charged.' });
  }
  const offer = await findOffer(deps, caller, seen, input.bundle);
  return deps.knex.transaction(async (trx) => {
    const locked = await findEsim(trx, seen.id, { lock: true });
    if (!locked) throw notFound();
    // Cancelled meanwhile: refused, and the refusal is the request's answer.
    assertToppable(locked);
    const at = await esimTime(trx, locked, now);
    const seconds = Math.floor(at.getTime() / 1000);
    const topupId = newId('topup');
    await payFromSimulatedBalance(
      trx,
      caller,
      { type: 'topup', amount_cents: offer.price_cents, source: topupId, description: `${offer.name} onto ${locked.id}` },
      at,
    );
    const revived = revives(locked);
    const after = toppedUp(locked, offer, seconds, revived ? await stateBeforeExpiry(trx, locked.id) : undefined);
    const record: TopupRecord = {
      id: topupId,
      account_id: caller.accountId,
      environment: caller.environment,
      esim_id: locked.id,
      bundle: offer.name,
      data_limit_bytes: dataLimitBytes(offer),
      duration_days: offer.duration_days ?? null,
      price_cents: offer.price_cents,
      currency: 'USD',
      status: 'succeeded',
      previous_expires_at: locked.expires_at,
      expires_at: after.expires_at,
      created_at: seconds,
    };
    await insertTopup(trx, record);
    await saveToppedUpEsim(trx, after);
    const topup = toPublicTopup(record);
    await recordTopupEvents(trx, locked, after, topup, at);
    await claim.record(trx, 201, topup);
    return topup;
  });
}

/** `esim.topped_up`, then, for a revived eSIM, the event of the state it is back in (record 0258). */
async function recordTopupEvents(trx: Knex.Transaction, before: EsimRecord, after: EsimRecord, topup: Topup, at: Date): Promise<void> {
  await addEvent(
    trx,
    {
      type: 'esim.topped_up',
      environment: after.environment,
      accountId: after.account_id,
      data: { object: toPublicEsim(after), previous_state: before.state, topup },
    },
    at,
  );
  if (before.state !== after.state) await recordEsimEvents(trx, [{ kind: 'state', esim: after, previous_state: before.state }], at);
}

/** The bundle named, if it is one of the eSIM's offers; 400 `invalid_parameter` (`param: "bundle"`) otherwise. */
async function findOffer(deps: CreateTopupDeps, caller: Caller, esim: EsimRecord, name: string): Promise<InternalBundle> {
  const offer = (await topupOffersFor(deps.topups, caller, esim)).find((candidate) => candidate.name === name);
  if (offer) return offer;
  throw new ApiError('invalid_parameter', {
    param: 'bundle',
    message: `\`${name}\` cannot top up this eSIM; list the bundles that can with GET /v1/esim/${esim.id}/topups.`,
  });
}
