import type { Esim } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import { expireEsim, recordEsimEvents } from '../db/esim-events.ts';
import { findEsim, updateEsimRow } from '../db/esim-repository.ts';
import { esimTime } from '../db/test-clock-repository.ts';
import { assertCanReach, notFound } from '../domain/access.ts';
import { isPastValidity, toPublicEsim } from '../domain/esim.ts';
import { applyUsage, usageRefused } from '../domain/usage.ts';

export interface RecordUsageDeps {
  knex: Knex;
  now?: () => Date;
}

/**
 * POST /internal/esims/{id}/usage: applies usage under the row lock and writes the events of
 * every consequence (install, activation, thresholds, expiry) in the same transaction.
 */
export async function recordUsage(deps: RecordUsageDeps, caller: Caller, idOrIccid: string, bytes: number, claim: IdempotencyClaim): Promise<Esim> {
  const now = deps.now ?? (() => new Date());
  const result = await deps.knex.transaction(async (trx) => {
    const esim = await findEsim(trx, idOrIccid, { lock: true });
    // The public call names the eSIM in its body field `esim`, so errors point there.
    if (!esim) throw notFound('esim');
    assertCanReach(esim, caller, 'esim');
    // Real time, or the test clock's time for an eSIM on a clock.
    const at = await esimTime(trx, esim, now);
    const seconds = Math.floor(at.getTime() / 1000);
    // Validity ended and the sweeper has not come by yet: the eSIM expires now (with its event,
    // committed) and takes no usage, as it would a moment later.
    if (isPastValidity(esim, seconds)) {
      const expired = await expireEsim(trx, esim, 'validity_ended', at);
      const refusal = usageRefused('expired');
      await claim.recordError(trx, refusal);
      return { esim: expired, refusal };
    }
    const outcome = applyUsage({ ...esim, updated_at: seconds }, bytes, seconds);
    const { state, expired_reason, data_used_bytes, thresholds_notified, expires_at, updated_at } = outcome.esim;
    await updateEsimRow(trx, esim.id, { state, expired_reason, data_used_bytes, thresholds_notified, expires_at, updated_at });
    // Each step of the usage is one change, announced in order.
    await recordEsimEvents(trx, outcome.steps, at);
    // The usage and its answer commit together: a retried call adds no usage twice.
    await claim.record(trx, 200, toPublicEsim(outcome.esim));
    return { esim: outcome.esim, refusal: undefined };
  });
  if (result.refusal) throw result.refusal;
  return toPublicEsim(result.esim);
}
