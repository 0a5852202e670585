import { ApiError, type InternalBundle, type Topup } from '@connectivity/contracts';
import { newId, type Caller, type IdempotencyClaim, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { TopupClient } from '../clients/topup-client.ts';
import { recordEsimEvents } from '../db/esim-events.ts';
import { findEsim } from '../db/esim-repository.ts';
import { addEvent } from '../db/outbox-events.ts';
import { keepHold, returnHold } from '../db/purchase-settlement.ts';
import { payFromSimulatedBalance } from '../db/simulated-payment.ts';
import { esimTime } from '../db/test-clock-repository.ts';
import { findRecordedTopupIntent } from '../db/purchase-intent-repository.ts';
import { findTopup, insertTopup, saveToppedUpEsim, stateBeforeExpiry } from '../db/topup-repository.ts';
import { notFound } from '../domain/access.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { dataLimitBytes } from '../domain/order.ts';
import { assertToppable, revives, toPublicTopup, toppedUp, type TopupRecord } from '../domain/topup.ts';
import { findReachableEsim } from './get-esim.ts';
import { topupOffersFor } from './list-topup-offers.ts';
import { purchaseSettings } from './live-purchase.ts';
import { liveTopupPurchase } from './live-topup.ts';

export interface CreateTopupDeps {
  knex: Knex;
  topups: TopupClient;
  logger: Logger;
  now?: () => Date;
  /** As a live order's (records 0152, 0159, 0162): a live top-up is one purchase of the same kind (record 0246). */
  intentCheckAfterMs?: number;
  maxLiveInFlight?: number;
  purchaseInDoubtMs?: number;
}

/**
 * POST /v1/esim/{id}/topups (records 0240-0243). The eSIM is checked (a cancelled one is 409) and the
 * bundle found among its offers (400 `invalid_parameter`, `param: "bundle"` otherwise) before anything
 * is written; then ONE transaction, under the eSIM's row lock, pays (the simulated balance, when set),
 * records the top-up, adds its data and validity to the eSIM, revives it when it had expired for want
 * of data or time, writes `esim.topped_up` (and the event of the state it came back to) and the
 * idempotent answer. A live eSIM is topped up at its supplier first (records 0245, 0246): the price held
 * before the vendor is asked, bought once, then recorded in the same way, the hold kept.
 */
export async function createTopup(
  deps: CreateTopupDeps,
  caller: Caller,
  idOrIccid: string,
  input: { bundle: string },
  claim: IdempotencyClaim,
): Promise<Topup> {
  const now = deps.now ?? (() => new Date());
  // A live top-up the worker recorded after its request was abandoned (record 0259) is this retry's answer.
  const recorded = caller.environment === 'live' ? await recordedTopupOf(deps.knex, claim) : undefined;
  if (recorded) return recorded;
  const seen = await findReachableEsim(deps.knex, caller, idOrIccid);
  assertToppable(seen);
  const offer = await findOffer(deps, caller, seen, input.bundle);
  if (seen.environment === 'live') return createLiveTopup(deps, caller, seen, offer, claim);
  return deps.knex.transaction(async (trx) => {
    const locked = await lockToppable(trx, seen.id);
    const at = await esimTime(trx, locked, now);
    const topupId = newId('topup');
    await payFromSimulatedBalance(
      trx,
      caller,
      { type: 'topup', amount_cents: offer.price_cents, source: topupId, description: `${offer.name} onto ${locked.id}` },
      at,
    );
    return recordTopup(trx, caller, locked, offer, topupId, at, claim);
  });
}

/**
 * A live top-up: bought once at the vendor under a hold (record 0246), then recorded with the hold kept.
 * An eSIM cancelled while the vendor was asked is still refused (409), the hold given back; the bundle
 * bought is then on a profile being ended at the vendor (record 0246).
 */
async function createLiveTopup(deps: CreateTopupDeps, caller: Caller, esim: EsimRecord, offer: InternalBundle, claim: IdempotencyClaim): Promise<Topup> {
  const now = deps.now ?? (() => new Date());
  const topupId = await liveTopupPurchase(
    {
      knex: deps.knex,
      topups: deps.topups,
      logger: deps.logger,
      ...purchaseSettings(deps),
    },
    caller,
    { iccid: esim.iccid, bundle: offer.name, price_cents: offer.price_cents, offer },
    claim,
  );
  try {
    return await deps.knex.transaction(async (trx) => {
      const locked = await lockToppable(trx, esim.id);
      const at = now();
      if (!(await keepHold(trx, topupId, at))) {
        throw new ApiError('supplier_refused', { message: 'This top-up was given up while it was being recorded; nothing was charged.' });
      }
      return recordTopup(trx, caller, locked, offer, topupId, at, claim);
    });
  } catch (error) {
    // Refused for good (the eSIM cancelled meanwhile): the hold is given back. A lost idempotency claim is
    // not final: the retry that took it over records the top-up (as a live order's, record 0159).
    if (error instanceof ApiError && error.status < 500 && error.code !== 'idempotency_key_reused') {
      await deps.knex.transaction((trx) => returnHold(trx, topupId, 'released', now(), `Not recorded (${error.code})`));
    }
    throw error;
  }
}

/** The top-up this request's intent was recorded as, its answer recorded for the request; undefined if none. */
async function recordedTopupOf(knex: Knex, claim: IdempotencyClaim): Promise<Topup | undefined> {
  if (!claim.request) return undefined;
  const topupId = await findRecordedTopupIntent(knex, claim.request);
  if (topupId === undefined) return undefined;
  const record = await findTopup(knex, topupId);
  if (!record) return undefined;
  const topup = toPublicTopup(record);
  await knex.transaction((trx) => claim.record(trx, 201, topup));
  return topup;
}

/** The eSIM under its row lock, still toppable (cancelled meanwhile: refused, and that is the request's answer). */
export async function lockToppable(trx: Knex.Transaction, esimId: string): Promise<EsimRecord> {
  const locked = await findEsim(trx, esimId, { lock: true });
  if (!locked) throw notFound();
  assertToppable(locked);
  return locked;
}

/**
 * Records a paid top-up on the locked eSIM: its data and validity, a revival, the events and the
 * idempotent answer (none when the purchase-intent worker records it, record 0259).
 */
export async function recordTopup(
  trx: Knex.Transaction,
  caller: Caller,
  locked: EsimRecord,
  offer: InternalBundle,
  topupId: string,
  at: Date,
  claim: IdempotencyClaim | undefined,
): Promise<Topup> {
  {
    const seconds = Math.floor(at.getTime() / 1000);
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
    await claim?.record(trx, 201, topup);
    return topup;
  }
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
