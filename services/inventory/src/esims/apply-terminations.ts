import type { Knex } from 'knex';
import { terminationRepository } from '../db/termination-repository.ts';
import { esimRepository } from '../db/esim-repository.ts';
import type { EsimRecord } from '../domain/esim.ts';
import { recordEsimEvents } from '../events/esim-events.ts';

/**
 * One batch of cancels the supplier confirmed but whose database write failed: each locked
 * eSIM moves to `expired` with its `esim.expired` (unless something expired it meanwhile) and
 * its termination fact is cleared, in one transaction. Resolves with how many facts it took
 * and how many eSIMs it moved.
 */
export async function applyRecordedTerminations(knex: Knex, at: Date, limit: number): Promise<{ taken: number; moved: number }> {
  const seconds = Math.floor(at.getTime() / 1000);
  return knex.transaction(async (trx) => {
    const locked = await terminationRepository.lockTerminated(trx, limit);
    const changes = [];
    for (const esim of locked) {
      await terminationRepository.clear(trx, esim.id);
      if (esim.state === 'expired') continue;
      const expired: EsimRecord = { ...esim, state: 'expired', updated_at: seconds };
      await esimRepository.update(trx, esim.id, { state: 'expired', updated_at: seconds });
      changes.push({ kind: 'state' as const, esim: expired, previous_state: esim.state });
    }
    await recordEsimEvents(trx, changes, at);
    return { taken: locked.length, moved: changes.length };
  });
}
