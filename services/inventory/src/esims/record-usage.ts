import type { Esim } from '@connectivity/contracts';
import { recordIdempotentAnswer, recordIdempotentError } from '@connectivity/platform';
import type { Knex } from 'knex';
import { esimRepository } from '../db/esim-repository.ts';
import { assertCanReach, notFound, type Caller } from '../domain/access.ts';
import { isPastValidity, toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { applyUsage, usageRefused } from '../domain/usage.ts';
import { recordEsimEvents, type EsimChange } from '../events/esim-events.ts';
import { esimTime } from '../test-clocks/clock-time.ts';

export interface RecordUsageDeps {
  knex: Knex;
  now?: () => Date;
}

/**
 * POST /internal/esims/{id}/usage: applies usage under the row lock and writes the events of
 * every consequence (install, activation, thresholds, expiry) in the same transaction.
 */
export async function recordUsage(deps: RecordUsageDeps, caller: Caller, idOrIccid: string, bytes: number): Promise<Esim> {
  const now = deps.now ?? (() => new Date());
  const result = await deps.knex.transaction(async (trx) => {
    const esim = await esimRepository.find(trx, idOrIccid, { lock: true });
    // The public call names the eSIM in its body field `esim`, so errors point there.
    if (!esim) throw notFound('esim');
    assertCanReach(esim, caller, 'esim');
    // Real time, or the test clock's time for an eSIM on a clock.
    const at = await esimTime(trx, esim, now);
    const seconds = Math.floor(at.getTime() / 1000);
    // Validity ended and the sweeper has not come by yet: the eSIM expires now (with its event,
    // committed) and takes no usage, as it would a moment later.
    if (isPastValidity(esim, seconds)) {
      const expired: EsimRecord = { ...esim, state: 'expired', updated_at: seconds };
      await esimRepository.update(trx, esim.id, { state: 'expired', updated_at: seconds });
      await recordEsimEvents(trx, [{ kind: 'state', esim: expired, previous_state: esim.state }], at);
      const refusal = usageRefused('expired');
      await recordIdempotentError(trx, refusal);
      return { esim: expired, emitted: true, refusal };
    }
    const outcome = applyUsage({ ...esim, updated_at: Math.floor(at.getTime() / 1000) }, bytes);
    const { state, data_used_bytes, thresholds_notified, updated_at } = outcome.esim;
    await esimRepository.update(trx, esim.id, { state, data_used_bytes, thresholds_notified, updated_at });
    const changes: EsimChange[] = outcome.steps.map((step) =>
      step.kind === 'state'
        ? { kind: 'state', esim: step.esim, previous_state: step.previous_state }
        : { kind: 'threshold', esim: step.esim, threshold_percent: step.threshold_percent },
    );
    await recordEsimEvents(trx, changes, at);
    // The usage and its answer commit together: a retried call adds no usage twice.
    await recordIdempotentAnswer(trx, 200, toPublicEsim(outcome.esim));
    return { esim: outcome.esim, emitted: changes.length > 0, refusal: undefined };
  });
  if (result.refusal) throw result.refusal;
  return toPublicEsim(result.esim);
}
