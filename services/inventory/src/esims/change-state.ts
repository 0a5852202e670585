import { isApiError, type Esim, type EsimState } from '@connectivity/contracts';
import { recordIdempotentAnswer, recordIdempotentError } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient, ProfileAction } from '../clients/catalogue-client.ts';
import { esimRepository } from '../db/esim-repository.ts';
import { terminationRepository } from '../db/termination-repository.ts';
import { assertCanReach, notFound, type Caller } from '../domain/access.ts';
import { isPastValidity, toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { planPatch } from '../domain/state-machine.ts';
import { recordEsimEvents } from '../events/esim-events.ts';

export interface ChangeStateDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  now?: () => Date;
}

/** The supplier call a live move needs before we record it; sandbox moves need none. */
function supplierAction(esim: EsimRecord, to: EsimState): ProfileAction | undefined {
  if (esim.environment !== 'live') return undefined;
  if (esim.state === 'active' && to === 'suspended') return 'suspend';
  if (esim.state === 'suspended' && to === 'active') return 'resume';
  // A cancel: the supplier ends the profile (and stops charging us for it) before we record it.
  if (to === 'expired') return 'terminate';
  return undefined;
}

/**
 * PATCH /v1/esim/{id}. The move is checked first without a lock (so a refused move never
 * reaches the supplier), the supplier is asked for a live suspend, resume or cancel outside any
 * transaction, then the move is made under the row lock, checked again against the state
 * found there: of concurrent PATCHes to one target, one moves and emits, the rest find the
 * eSIM already there and change nothing.
 *
 * A live cancel tells the supplier first, then writes down on its own that the supplier
 * terminated the profile, then moves the eSIM and clears that fact in one transaction. If that
 * transaction fails, the PATCH fails but the fact survives: the next PATCH of the eSIM or the
 * next sweeper pass records the move (with its one `esim.expired`) without asking the supplier
 * again. If a concurrent PATCH or the sweeper expired the eSIM meanwhile, the cancel finds it
 * expired and answers it unchanged (the supplier's terminate is idempotent).
 */
export async function changeState(deps: ChangeStateDeps, caller: Caller, idOrIccid: string, to: EsimState): Promise<Esim> {
  const now = deps.now ?? (() => new Date());
  const seen = await esimRepository.find(deps.knex, idOrIccid);
  if (!seen) throw notFound();
  assertCanReach(seen, caller);
  if (planPatch(seen.state, to, caller.environment).kind === 'unchanged') return toPublicEsim(seen);

  // A profile the supplier already terminated takes no further supplier call: the move below
  // records the cancel, and any other move is then refused from `expired`.
  const terminated = seen.environment === 'live' && (await terminationRepository.exists(deps.knex, seen.id));
  const action = terminated ? undefined : supplierAction(seen, to);
  if (action) await deps.catalogue.profileAction(caller, seen.iccid, action);
  if (action === 'terminate') await terminationRepository.record(deps.knex, seen.id, now().getTime());

  const result = await deps.knex.transaction(async (trx) => {
    const locked = await esimRepository.find(trx, seen.id, { lock: true });
    if (!locked) throw notFound();
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    let esim = locked;
    let moved = false;
    // The supplier terminated the profile, or validity ended, and the sweeper has not come by
    // yet: the eSIM expires first (with its event, committed even if the requested move is then
    // refused), as it would a moment later.
    const supplierTerminated = esim.environment === 'live' && (await terminationRepository.clear(trx, esim.id));
    if (esim.state !== 'expired' && (supplierTerminated || isPastValidity(esim, seconds))) {
      esim = await move(trx, esim, 'expired', at);
      moved = true;
    }
    let plan;
    try {
      plan = planPatch(esim.state, to, caller.environment);
    } catch (error) {
      if (!moved || !isApiError(error)) throw error;
      // The expiry commits, and so does the refusal that answers this request.
      await recordIdempotentError(trx, error);
      return { esim, moved, refusal: error };
    }
    if (plan.kind === 'move') {
      esim = await move(trx, esim, to, at);
      moved = true;
    }
    await recordIdempotentAnswer(trx, 200, toPublicEsim(esim));
    return { esim, moved, refusal: undefined };
  });
  if (result.refusal) throw result.refusal;
  return toPublicEsim(result.esim);
}

/** Moves the locked eSIM to `to` and writes the event of that state, in the caller's transaction. */
async function move(trx: Knex.Transaction, esim: EsimRecord, to: EsimState, at: Date): Promise<EsimRecord> {
  const updated: EsimRecord = { ...esim, state: to, updated_at: Math.floor(at.getTime() / 1000) };
  await esimRepository.update(trx, esim.id, { state: updated.state, updated_at: updated.updated_at });
  await recordEsimEvents(trx, [{ kind: 'state', esim: updated, previous_state: esim.state }], at);
  return updated;
}
