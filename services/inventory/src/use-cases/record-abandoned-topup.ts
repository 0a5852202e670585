import { ApiError } from '@connectivity/contracts';
import type { Caller, Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findEsim } from '../db/esim-repository.ts';
import type { DueIntent } from '../db/purchase-intent-repository.ts';
import { keepHold, returnHold } from '../db/purchase-settlement.ts';
import { lockToppable, recordTopup } from './create-topup.ts';

/**
 * A live top-up the vendor made and nobody recorded (its request died or was never retried; record 0259):
 * recorded now as the request would have recorded it, from the offer its intent kept, in one transaction
 * that keeps the hold. Nothing happens if a retry recorded or gave it up meanwhile (the intent is no longer
 * pending). An eSIM cancelled meanwhile cannot take it: the hold is given back, as the request does (the
 * bundle bought is on a profile being ended at the vendor, record 0246). An intent written before offers
 * were kept has nothing to record from: it stays held and the operator is told.
 */
export async function recordAbandonedTopup(deps: { knex: Knex; logger: Logger }, intent: DueIntent, at: Date): Promise<void> {
  const offer = intent.topup_offer;
  if (offer === null || intent.iccid === null) {
    deps.logger.error(
      { topupId: intent.order_id, iccid: intent.iccid },
      'a live top-up was bought and never recorded; its hold stays until its request is retried',
    );
    return;
  }
  const caller: Caller = { accountId: intent.account_id, environment: 'live' };
  try {
    const recorded = await deps.knex.transaction(async (trx) => {
      const found = await findEsim(trx, intent.iccid!);
      const locked = found && (await lockToppable(trx, found.id));
      if (!locked || !(await keepHold(trx, intent.order_id, at))) return false;
      await recordTopup(trx, caller, locked, offer, intent.order_id, at, undefined);
      return true;
    });
    if (recorded) deps.logger.warn({ topupId: intent.order_id }, 'a live top-up bought and never recorded by its request was recorded');
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    await deps.knex.transaction((trx) => returnHold(trx, intent.order_id, 'released', at, `Not recorded (${error.code})`));
  }
}
