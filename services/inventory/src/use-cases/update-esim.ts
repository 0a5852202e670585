import { isApiError, type Esim, type EsimState, type Metadata } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient, ProfileAction } from '../clients/catalogue-client.ts';
import { expireEsim, moveOrCancelEsim } from '../db/esim-events.ts';
import { openRefund } from '../db/refund-ledger.ts';
import { findEsim, updateEsimRow } from '../db/esim-repository.ts';
import { clearTermination, recordTermination, terminationExists } from '../db/termination-repository.ts';
import { esimTime } from '../db/test-clock-repository.ts';
import { assertCanReach, notFound } from '../domain/access.ts';
import { isPastValidity, toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { mergeMetadata, sameMetadata } from '../domain/metadata.ts';
import { planPatch } from '../domain/state-machine.ts';

export interface UpdateEsimDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  now?: () => Date;
  /** When the refund worker first asks the vendor about a refund it reviews (record 0158). */
  refundCheckAfterMs?: number;
}

/** The default of `refundCheckAfterMs`: Airalo's review is by hand and takes hours to days. */
export const REFUND_CHECK_AFTER_MS = 3_600_000;

/** The supplier call a live move needs before we record it; sandbox moves need none. */
function supplierAction(esim: EsimRecord, to: EsimState): ProfileAction | undefined {
  if (esim.environment !== 'live') return undefined;
  if (esim.state === 'active' && to === 'suspended') return 'suspend';
  if (esim.state === 'suspended' && to === 'active') return 'resume';
  // A cancel: the supplier ends the profile (and stops charging us for it) before we record it.
  if (to === 'expired') return 'terminate';
  return undefined;
}

/** What a PATCH asks for: a state, metadata to merge, or both. */
export interface EsimPatch {
  state?: EsimState | undefined;
  metadata?: Metadata | undefined;
}

/**
 * PATCH /v1/esim/{id}. The move is checked first without a lock (so a refused move never
 * reaches the supplier), the supplier is asked for a live suspend, resume or cancel outside any
 * transaction, then the move is made under the row lock, checked again against the state
 * found there: of concurrent PATCHes to one target, one moves and emits, the rest find the
 * eSIM already there and change nothing.
 *
 * Metadata is merged under the same lock, before the move, so the move's event shows the eSIM as
 * the PATCH leaves it; a change of metadata alone emits no event. A PATCH refused (a move the life
 * cycle forbids, or metadata of more than 50 keys) changes neither.
 *
 * A live cancel tells the supplier first, then writes down on its own that the supplier
 * terminated the profile, then moves the eSIM and clears that fact in one transaction. If that
 * transaction fails, the PATCH fails but the fact survives: the next PATCH of the eSIM or the
 * next sweeper pass records the move (with its one `esim.expired`) without asking the supplier
 * again. If a concurrent PATCH or the sweeper expired the eSIM meanwhile, the cancel finds it
 * expired and answers it unchanged (the supplier's terminate is idempotent).
 */
export async function updateEsim(deps: UpdateEsimDeps, caller: Caller, idOrIccid: string, patch: EsimPatch, claim: IdempotencyClaim): Promise<Esim> {
  const now = deps.now ?? (() => new Date());
  const to = patch.state;
  const seen = await findEsim(deps.knex, idOrIccid);
  if (!seen) throw notFound();
  assertCanReach(seen, caller);
  const stateUnchanged = to === undefined || planPatch(seen.state, to, caller.environment).kind === 'unchanged';
  if (stateUnchanged && patch.metadata === undefined) return toPublicEsim(seen);

  // A profile the supplier already terminated takes no further supplier call: the move below
  // records the cancel, and any other move is then refused from `expired`.
  const terminated = seen.environment === 'live' && (await terminationExists(deps.knex, seen.id));
  const action = terminated || to === undefined || stateUnchanged ? undefined : supplierAction(seen, to);
  if (action === 'terminate') {
    const termination = await deps.catalogue.terminate(caller, seen.iccid);
    await recordTermination(deps.knex, seen.id, now().getTime(), { refund: termination.refund, vendor_refund_id: termination.vendor_refund_id });
  } else if (action) {
    await deps.catalogue.profileAction(caller, seen.iccid, action);
  }

  const result = await deps.knex.transaction(async (trx) => {
    const locked = await findEsim(trx, seen.id, { lock: true });
    if (!locked) throw notFound();
    // Real time, or the test clock's time for an eSIM on a clock.
    const at = await esimTime(trx, locked, now);
    const seconds = Math.floor(at.getTime() / 1000);
    let esim = locked;
    let moved = false;
    // The supplier terminated the profile, or validity ended, and the sweeper has not come by
    // yet: the eSIM expires first (with its event, committed even if the requested change is
    // then refused), as it would a moment later.
    const supplierTerminated = esim.environment === 'live' ? await clearTermination(trx, esim.id) : undefined;
    if (esim.state !== 'expired' && (supplierTerminated || isPastValidity(esim, seconds))) {
      esim = await expireEsim(trx, esim, supplierTerminated ? 'cancelled' : 'validity_ended', at);
      moved = true;
    }
    // The cancel's money: refunded, asked for, or refused by the vendor (record 0158); also when a
    // concurrent cancel recorded the move first (an eSIM has one refund at most).
    if (supplierTerminated && esim.expired_reason === 'cancelled') {
      await openRefund(trx, esim, supplierTerminated, at, deps.refundCheckAfterMs ?? REFUND_CHECK_AFTER_MS);
    }
    // A state the eSIM was already in when read asks for no move: a concurrent move since then
    // stands (and was not prepared with the supplier here), unless the eSIM just expired.
    const target = to === undefined || (stateUnchanged && !moved) ? undefined : to;
    let plan;
    let metadata: Metadata | undefined;
    try {
      metadata = patch.metadata === undefined ? undefined : mergeMetadata(esim.metadata, patch.metadata);
      plan = target === undefined ? undefined : planPatch(esim.state, target, caller.environment);
    } catch (error) {
      if (!moved || !isApiError(error)) throw error;
      // The expiry commits, and so does the refusal that answers this request.
      await claim.recordError(trx, error);
      return { esim, moved, refusal: error };
    }
    if (metadata !== undefined && !sameMetadata(metadata, esim.metadata)) {
      esim = { ...esim, metadata, updated_at: seconds };
      await updateEsimRow(trx, esim.id, { metadata, updated_at: seconds });
    }
    if (plan?.kind === 'move') {
      const unused = esim.state === 'released' || esim.state === 'installed';
      esim = await moveOrCancelEsim(trx, esim, plan.to, at);
      moved = true;
      // The sandbox's supplier refunds a cancelled unused eSIM after a review, as Airalo does (record
      // 0158): pending, settled by the refund worker or at once with POST /v1/test/refunds/{id}/settle.
      if (esim.environment === 'test' && unused && esim.expired_reason === 'cancelled') {
        await openRefund(trx, esim, { refund: 'requested', vendor_refund_id: null }, at, deps.refundCheckAfterMs ?? REFUND_CHECK_AFTER_MS);
      }
    }
    await claim.record(trx, 200, toPublicEsim(esim));
    return { esim, moved, refusal: undefined };
  });
  if (result.refusal) throw result.refusal;
  return toPublicEsim(result.esim);
}
