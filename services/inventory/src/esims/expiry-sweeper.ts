import type { Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { esimRepository } from '../db/esim-repository.ts';
import type { EsimRecord } from '../domain/esim.ts';
import { recordEsimEvents } from '../events/esim-events.ts';
import { applyRecordedTerminations } from './apply-terminations.ts';

export interface ExpirySweeperOptions {
  knex: Knex;
  logger: Logger;
  intervalMs: number;
  batchSize: number;
  onEvents: () => void;
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
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function batch(): Promise<number> {
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    return options.knex.transaction(async (trx) => {
      const due = await esimRepository.lockExpired(trx, seconds, options.batchSize);
      const changes = [];
      for (const esim of due) {
        const expired: EsimRecord = { ...esim, state: 'expired', updated_at: seconds };
        await esimRepository.update(trx, esim.id, { state: 'expired', updated_at: seconds });
        changes.push({ kind: 'state' as const, esim: expired, previous_state: esim.state });
      }
      await recordEsimEvents(trx, changes, at);
      return due.length;
    });
  }

  async function sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await batch();
      total += expired;
      if (expired > 0) options.onEvents();
      if (expired < options.batchSize) break;
    }
    // Cancels the supplier confirmed whose own write failed: recorded here, once.
    for (;;) {
      const { taken, moved } = await applyRecordedTerminations(options.knex, now(), options.batchSize);
      total += moved;
      if (moved > 0) options.onEvents();
      if (taken < options.batchSize) return total;
    }
  }

  // One sweep at a time per instance; a call during a sweep waits for it and sweeps again.
  const serialized = async (): Promise<number> => {
    while (running) await running.catch(() => undefined);
    running = sweep();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  };

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      serialized()
        .then((count) => {
          if (count > 0) options.logger.info({ expired: count }, 'expired eSIMs past their validity');
        })
        .catch((error: unknown) => {
          options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'expiry sweep failed');
        })
        .finally(schedule);
    }, options.intervalMs);
    timer.unref();
  }
  schedule();

  return {
    sweep: serialized,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
