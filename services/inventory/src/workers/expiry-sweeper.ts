import { domainMetrics, startPoller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { moveEsim } from '../db/esim-events.ts';
import { clearTermination, lockTerminated } from '../db/termination-repository.ts';
import { lockExpired } from '../db/esim-repository.ts';

export interface ExpirySweeperOptions {
  knex: Knex;
  logger: Logger;
  intervalMs: number;
  batchSize: number;
  now?: () => Date;
}

export interface ExpirySweeper {
  /** Expires every eSIM whose validity has ended; resolves with how many it expired. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Moves eSIMs past `expires_at` to `expired`, with `esim.expired`, in batches; then the live
 * eSIMs whose cancel the supplier confirmed but whose database write failed. Each batch is one
 * transaction holding its rows with `FOR UPDATE SKIP LOCKED`, and re-reads the state under the
 * lock, so several instances sweeping at once expire each eSIM exactly once.
 */
export function startExpirySweeper(options: ExpirySweeperOptions): ExpirySweeper {
  const now = options.now ?? (() => new Date());

  async function batch(): Promise<number> {
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    return options.knex.transaction(async (trx) => {
      const due = await lockExpired(trx, seconds, options.batchSize);
      for (const esim of due) await moveEsim(trx, esim, 'expired', at);
      return due.length;
    });
  }

  /** One pass: a batch of eSIMs past validity, then a batch of recorded supplier terminations. */
  async function pass(): Promise<{ done: number; more: boolean }> {
    const expired = await batch();
    const { taken, moved } = await applyRecordedTerminations(options.knex, now(), options.batchSize);
    if (expired + moved > 0) {
      domainMetrics.sweeperMoved(expired + moved);
      options.logger.info({ expired: expired + moved }, 'expired eSIMs past their validity');
    }
    return { done: expired + moved, more: expired === options.batchSize || taken === options.batchSize };
  }

  const poller = startPoller({ name: 'expiry sweeper', intervalMs: options.intervalMs, logger: options.logger, pass });

  return {
    sweep: () => poller.runOnce(),
    stop: () => poller.stop(),
  };
}

/**
 * One batch of cancels the supplier confirmed but whose database write failed: each locked
 * eSIM moves to `expired` with its `esim.expired` (unless something expired it meanwhile) and
 * its termination fact is cleared, in one transaction. Resolves with how many facts it took
 * and how many eSIMs it moved.
 */
async function applyRecordedTerminations(knex: Knex, at: Date, limit: number): Promise<{ taken: number; moved: number }> {
  return knex.transaction(async (trx) => {
    const locked = await lockTerminated(trx, limit);
    let moved = 0;
    for (const esim of locked) {
      await clearTermination(trx, esim.id);
      if (esim.state === 'expired') continue;
      await moveEsim(trx, esim, 'expired', at);
      moved += 1;
    }
    return { taken: locked.length, moved };
  });
}
