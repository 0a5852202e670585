import { isApiError, type Esim, type EsimState } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { CatalogueClient, ProfileAction } from '../clients/catalogue-client.ts';
import { esimRepository } from '../db/esim-repository.ts';
import { assertCanReach, notFound, type Caller } from '../domain/access.ts';
import { isPastValidity, toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { planPatch } from '../domain/state-machine.ts';
import { recordEsimEvents } from '../events/esim-events.ts';

export interface ChangeStateDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  onEvents: () => void;
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
 * A live cancel tells the supplier first. If a concurrent PATCH or the sweeper expired the eSIM
 * meanwhile, the cancel finds it expired and answers it unchanged (the supplier's terminate is
 * idempotent, so both having asked is harmless). If the transaction fails after the supplier
 * terminated, the PATCH fails with the eSIM unchanged here; a retried cancel terminates again
 * (a no-op at the supplier) and records the move, so the two sides converge on the retry.
 */
export async function changeState(deps: ChangeStateDeps, caller: Caller, idOrIccid: string, to: EsimState): Promise<Esim> {
  const now = deps.now ?? (() => new Date());
  const seen = await esimRepository.find(deps.knex, idOrIccid);
  if (!seen) throw notFound();
  assertCanReach(seen, caller);
  if (planPatch(seen.state, to, caller.environment).kind === 'unchanged') return toPublicEsim(seen);

  const action = supplierAction(seen, to);
  if (action) await deps.catalogue.profileAction(caller, seen.iccid, action);

  const result = await deps.knex.transaction(async (trx) => {
    const locked = await esimRepository.find(trx, seen.id, { lock: true });
    if (!locked) throw notFound();
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    let esim = locked;
    let moved = false;
    // Validity ended and the sweeper has not come by yet: the eSIM expires first (with its
    // event, committed even if the requested move is then refused), as it would a moment later.
    if (isPastValidity(esim, seconds)) {
      esim = await move(trx, esim, 'expired', at);
      moved = true;
    }
    let plan;
    try {
      plan = planPatch(esim.state, to, caller.environment);
    } catch (error) {
      if (!moved || !isApiError(error)) throw error;
      return { esim, moved, refusal: error };
    }
    if (plan.kind === 'move') {
      esim = await move(trx, esim, to, at);
      moved = true;
    }
    return { esim, moved, refusal: undefined };
  });
  if (result.moved) deps.onEvents();
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
